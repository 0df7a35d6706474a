package bench

import "strings"

// checkValue checks one supplied argument against its declared type and its
// acceptable list: the type first, then the value by the declared type's
// rule, or plain membership in variable mode (FORMAT.md §7.6).
func checkValue(p *Param, v Value, acceptable []Value) Result {
	variable, res := checkType(p, v, acceptable)
	if !res.Pass {
		return res
	}
	switch {
	case variable:
	case p.Type == TypeString || p.Type == TypeAny:
		return checkString(p.Name, v, acceptable)
	case p.Type.isList() && p.Items == TypeDict:
		return checkListOfDicts(p.Name, v, acceptable)
	case p.Type.isList():
		return checkList(p.Name, v, acceptable)
	case p.Type == TypeDict:
		return checkDict(p.Name, v, acceptable)
	}
	if !in(v, acceptable) {
		return fail(ErrValue, "invalid value for %q: %s, expected one of %s", p.Name, v, List(acceptable...))
	}
	return pass
}

// answerKind is the kind of the first acceptable value that is not the ""
// marker (null counts), and false when there is none.
func answerKind(acceptable []Value) (Kind, bool) {
	for _, a := range acceptable {
		if !a.isEmptyMarker() {
			return a.Kind(), true
		}
	}
	return 0, false
}

// checkType is upstream's type test (FORMAT.md §7.6.1). It reports variable
// mode: the answer's values have a kind other than the declared type's
// (an integer parameter accepting "dontcare"), so they are matched exactly.
func checkType(p *Param, v Value, acceptable []Value) (variable bool, res Result) {
	declared, typed := p.Type.kind()
	if !typed {
		return true, pass // a user suite's untyped parameter: only compared
	}
	answer, hasAnswer := answerKind(acceptable)
	variable = hasAnswer && answer != declared
	if v.Kind() == declared {
		if declared != KindList || p.Items == TypeUntyped {
			return variable, pass
		}
		if elementsTyped(v, p.Items, acceptable) {
			return variable, pass
		}
		return false, fail(ErrNestedType, "elements of %q are not all of type %s", p.Name, p.Items)
	}
	if hasAnswer && v.Kind() == answer {
		return true, pass
	}
	return false, fail(ErrType, "%q is of type %s, expected %s", p.Name, v.Kind(), p.Type)
}

// elementsTyped is the one-level element test of a list: alternative by
// alternative, one that is not a list (the "" marker) passes at once, a list
// passes when every element has the declared element kind or the kind of
// that alternative's first element. No promotion at this level.
func elementsTyped(v Value, items Type, acceptable []Value) bool {
	element, _ := items.kind()
	for _, alt := range acceptable {
		if alt.Kind() != KindList {
			return true
		}
		own, hasOwn := answerKind(alt.Items())
		ok := true
		for _, x := range v.Items() {
			if x.Kind() != element && !(hasOwn && x.Kind() == own) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// normalizer deletes what upstream's string comparison ignores: spaces and
// , . / - _ * ^ (FORMAT.md §7.6.2).
var normalizer = strings.NewReplacer(" ", "", ",", "", ".", "", "/", "", "-", "", "_", "", "*", "", "^", "")

// normalize is a string as the checker compares it: those eight characters
// gone, lower case, single quotes made double. Nothing else is touched.
func normalize(s string) string {
	return strings.ReplaceAll(strings.ToLower(normalizer.Replace(s)), "'", `"`)
}

// normalized is a string value normalised, any other value as it is.
func normalized(v Value) Value {
	if v.Kind() == KindString {
		return String(normalize(v.Str()))
	}
	return v
}

// checkString: membership after normalising both sides, among the string
// alternatives only; a string that normalises to empty matches the "" marker.
func checkString(name string, v Value, acceptable []Value) Result {
	got := normalize(v.Str())
	for _, a := range acceptable {
		if a.Kind() == KindString && normalize(a.Str()) == got {
			return pass
		}
	}
	return fail(ErrString, "invalid value for %q: %s, expected one of %s", name, v, List(acceptable...))
}

// normalizedList is a list with its top-level strings normalised; nested
// lists stay literal.
func normalizedList(v Value) Value {
	out := make([]Value, len(v.Items()))
	for i, x := range v.Items() {
		out[i] = normalized(x)
	}
	return List(out...)
}

// checkList: the normalised list must equal one alternative, normalised the
// same way, in order; the "" marker stands for the empty list (FORMAT.md
// §7.6.3).
func checkList(name string, v Value, acceptable []Value) Result {
	got := normalizedList(v)
	for _, a := range acceptable {
		switch {
		case a.isEmptyMarker():
			a = List()
		case a.Kind() == KindList:
			a = normalizedList(a)
		}
		if Equal(got, a) {
			return pass
		}
	}
	return fail(ErrList, "invalid value for %q: %s, expected one of %s", name, v, List(acceptable...))
}

// checkDict tries the map alternatives in order; the first that passes wins,
// else the last one's failure is the answer's (FORMAT.md §7.6.4).
func checkDict(name string, v Value, acceptable []Value) Result {
	res := fail(ErrDictValue, "%q: no acceptable object to compare %s with", name, v)
	for _, a := range acceptable {
		if a.isEmptyMarker() {
			continue
		}
		if res = dictAgainst(name, v, a); res.Pass {
			return res
		}
	}
	return res
}

// dictAgainst checks a model map against one alternative, whose keys map to
// acceptable lists: no key the alternative lacks, each value (normalised if a
// string, members too; everything else literal) among the key's list, and
// each key not sent optional. No type test inside.
func dictAgainst(name string, v, alt Value) Result {
	if v.Kind() != KindMap || alt.Kind() != KindMap {
		return fail(ErrDictValue, "invalid value for %q: %s, expected %s", name, v, alt)
	}
	for _, m := range v.Members() {
		options, ok := alt.Get(m.Key)
		if !ok {
			return fail(ErrDictKey, "%q: unexpected key %q", name, m.Key)
		}
		if !inNormalized(normalized(m.Value), acceptableOf(options)) {
			return fail(ErrDictValue, "%q: invalid value for key %q: %s, expected one of %s", name, m.Key, m.Value, options)
		}
	}
	for _, m := range alt.Members() {
		if _, ok := v.Get(m.Key); !ok && !hasMarker(acceptableOf(m.Value)) {
			return fail(ErrDictMissing, "%q: missing key %q", name, m.Key)
		}
	}
	return pass
}

// acceptableOf is an alternative's list for a key (a lone value as a list
// of one, for hand-written user suites).
func acceptableOf(v Value) []Value {
	if v.Kind() == KindList {
		return v.Items()
	}
	return []Value{v}
}

func inNormalized(v Value, list []Value) bool {
	for _, w := range list {
		if Equal(v, normalized(w)) {
			return true
		}
	}
	return false
}

// checkListOfDicts: an alternative is a list of per-key maps, matched
// position by position; the "" marker is the empty list (FORMAT.md §7.6.5).
func checkListOfDicts(name string, v Value, acceptable []Value) Result {
	res := fail(ErrListDictCount, "%q: no acceptable list to compare %s with", name, v)
	for _, a := range acceptable {
		if a.isEmptyMarker() {
			a = List()
		}
		if res = listOfDictsAgainst(name, v, a); res.Pass {
			return res
		}
	}
	return res
}

func listOfDictsAgainst(name string, v, alt Value) Result {
	if alt.Kind() != KindList || len(v.Items()) != len(alt.Items()) {
		return fail(ErrListDictCount, "%q: %d objects, expected %s", name, len(v.Items()), alt)
	}
	for i, x := range v.Items() {
		if res := dictAgainst(name, x, alt.Items()[i]); !res.Pass {
			return res
		}
	}
	return pass
}
