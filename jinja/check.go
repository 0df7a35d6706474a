package jinja

// checkNames reports an unknown filter or test as Jinja2's compiler does: at
// compile time, unless it sits in a "soft" frame — the test or a branch of an if
// statement, or a conditional expression — where the error waits until the
// expression runs. Frames of their own (loop bodies, macros, set and filter
// blocks, with blocks) are never soft, even inside an if.
func checkNames(body []stmt, soft bool) error {
	for _, s := range body {
		if err := checkStmt(s, soft); err != nil {
			return err
		}
	}
	return nil
}

func checkStmt(s stmt, soft bool) error {
	switch s := s.(type) {
	case *outputStmt:
		return checkExpr(s.e, soft)
	case *ifStmt:
		for ; s != nil; s = s.elif() {
			if err := firstErr(checkExpr(s.cond, true), checkNames(s.body, true)); err != nil {
				return err
			}
			if s.elif() == nil {
				return checkNames(s.else_, true)
			}
		}
	case *forStmt:
		return firstErr(checkExpr(s.iter, soft), checkExpr(s.filter, false), checkNames(s.body, false), checkNames(s.else_, false))
	case *setStmt:
		return checkExpr(s.value, soft)
	case *setBlockStmt:
		return firstErr(checkFilters(s.filters, false), checkNames(s.body, false))
	case *macroStmt:
		return checkMacro(s.m)
	case *callBlockStmt:
		return firstErr(checkExpr(s.call, soft), checkMacro(s.caller))
	case *filterBlockStmt:
		return firstErr(checkFilters(s.filters, false), checkNames(s.body, false))
	case *withStmt:
		if err := checkExprs(s.values, soft); err != nil {
			return err
		}
		return checkNames(s.body, false)
	}
	return nil
}

func checkMacro(m *macroDef) error {
	return firstErr(checkExprs(m.defaults, false), checkNames(m.body, false))
}

func checkFilters(fs []*filterExpr, soft bool) error {
	for _, f := range fs {
		if err := checkExpr(f, soft); err != nil {
			return err
		}
	}
	return nil
}

func checkExprs(es []expr, soft bool) error {
	for _, e := range es {
		if err := checkExpr(e, soft); err != nil {
			return err
		}
	}
	return nil
}

func checkExpr(e expr, soft bool) error {
	switch e := e.(type) {
	case nil, *constExpr, *nameExpr:
		return nil
	case *listExpr:
		return checkExprs(e.items, soft)
	case *tupleExpr:
		return checkExprs(e.items, soft)
	case *dictExpr:
		return firstErr(checkExprs(e.keys, soft), checkExprs(e.vals, soft))
	case *attrExpr:
		return checkExpr(e.obj, soft)
	case *itemExpr:
		return firstErr(checkExpr(e.obj, soft), checkExpr(e.key, soft))
	case *sliceExpr:
		return firstErr(checkExpr(e.start, soft), checkExpr(e.stop, soft), checkExpr(e.step, soft))
	case *callExpr:
		return firstErr(checkExpr(e.fn, soft), checkExprs(e.args, soft), checkExprs(e.kwVals, soft),
			checkExpr(e.dynArgs, soft), checkExpr(e.dynKwargs, soft))
	case *filterExpr:
		if err := firstErr(checkExpr(e.node, soft), checkExprs(e.args, soft), checkExprs(e.kwVals, soft)); err != nil {
			return err
		}
		if e.fn == nil && !soft {
			return &Error{Kind: "TemplateAssertionError", Message: "No filter named " + repr(e.name) + ".", Line: e.line}
		}
	case *testExpr:
		if err := firstErr(checkExpr(e.node, soft), checkExprs(e.args, soft)); err != nil {
			return err
		}
		if e.fn == nil && !soft {
			return &Error{Kind: "TemplateAssertionError", Message: "No test named " + repr(e.name) + ".", Line: e.line}
		}
	case *binExpr:
		return firstErr(checkExpr(e.left, soft), checkExpr(e.right, soft))
	case *sumExpr:
		return checkExprs(e.operands, soft)
	case *unaryExpr:
		return checkExpr(e.e, soft)
	case *compareExpr:
		return firstErr(checkExpr(e.first, soft), checkExprs(e.rest, soft))
	case *condExpr:
		return firstErr(checkExpr(e.cond, true), checkExpr(e.then, true), checkExpr(e.else_, true))
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// maxExprDepth bounds how deeply an expression nests. Postfix chains
// (x.a.a…, x[0][0]…, x|f|f…) and operator chains (a - b - c…) parse in a
// loop but make trees as deep as they are long, which checkNames, the
// compiler and the render then walk recursively. Python's compiler gives up
// on such a template at a few hundred levels (RecursionError); a Go program
// cannot recover from exhausting its stack, so a deeper tree is refused
// before anything walks it.
const maxExprDepth = 1000

// checkDepth refuses a template with an expression nested deeper than
// maxExprDepth. Statements nest as deep as the parser allowed (maxNesting),
// an elif chain being followed in a loop.
func checkDepth(body []stmt) error {
	for _, s := range body {
		if err := checkStmtDepth(s); err != nil {
			return err
		}
	}
	return nil
}

func checkStmtDepth(s stmt) error {
	switch s := s.(type) {
	case *outputStmt:
		return exprDepth(s.e, 1, s.line)
	case *ifStmt:
		for ; s != nil; s = s.elif() {
			if err := firstErr(exprDepth(s.cond, 1, 0), checkDepth(s.body)); err != nil {
				return err
			}
			if s.elif() == nil {
				return checkDepth(s.else_)
			}
		}
	case *forStmt:
		return firstErr(exprDepth(s.target, 1, s.line), exprDepth(s.iter, 1, s.line), exprDepth(s.filter, 1, s.line),
			checkDepth(s.body), checkDepth(s.else_))
	case *setStmt:
		return firstErr(exprDepth(s.target, 1, s.line), exprDepth(s.value, 1, s.line))
	case *setBlockStmt:
		return firstErr(exprDepth(s.target, 1, s.line), filtersDepth(s.filters, s.line), checkDepth(s.body))
	case *macroStmt:
		return macroDepth(s.m, 0)
	case *callBlockStmt:
		return firstErr(exprDepth(s.call, 1, s.line), macroDepth(s.caller, s.line))
	case *filterBlockStmt:
		return firstErr(filtersDepth(s.filters, s.line), checkDepth(s.body))
	case *withStmt:
		for i := range s.targets {
			if err := firstErr(exprDepth(s.targets[i], 1, 0), exprDepth(s.values[i], 1, 0)); err != nil {
				return err
			}
		}
		return checkDepth(s.body)
	}
	return nil
}

func macroDepth(m *macroDef, line int) error {
	for _, d := range m.defaults {
		if err := exprDepth(d, 1, line); err != nil {
			return err
		}
	}
	return checkDepth(m.body)
}

func filtersDepth(fs []*filterExpr, line int) error {
	for _, f := range fs {
		if err := exprDepth(f, 1, line); err != nil {
			return err
		}
	}
	return nil
}

// exprDepth refuses e when it nests deeper than maxExprDepth below depth;
// its own recursion stops there. line is the line to report, the nearest
// the tree records.
func exprDepth(e expr, depth, line int) error {
	if e == nil {
		return nil
	}
	if l := exprLine(e); l > 0 {
		line = l
	}
	if depth > maxExprDepth {
		return syntaxError(line, "expression nests deeper than %d levels", maxExprDepth)
	}
	var err error
	eachChild(e, func(c expr) bool {
		err = exprDepth(c, depth+1, line)
		return err == nil
	})
	return err
}

// exprLine is the template line an expression node records, or 0.
func exprLine(e expr) int {
	switch e := e.(type) {
	case *nameExpr:
		return e.line
	case *attrExpr:
		return e.line
	case *itemExpr:
		return e.line
	case *callExpr:
		return e.line
	case *filterExpr:
		return e.line
	case *testExpr:
		return e.line
	case *binExpr:
		return e.line
	case *unaryExpr:
		return e.line
	case *compareExpr:
		return e.line
	case *bigIntExpr:
		return e.line
	}
	return 0
}

// eachChild calls fn on each direct sub-expression of e (some may be nil)
// until fn returns false.
func eachChild(e expr, fn func(expr) bool) {
	all := func(es []expr) bool {
		for _, c := range es {
			if !fn(c) {
				return false
			}
		}
		return true
	}
	switch e := e.(type) {
	case *listExpr:
		all(e.items)
	case *tupleExpr:
		all(e.items)
	case *dictExpr:
		_ = all(e.keys) && all(e.vals)
	case *attrExpr:
		fn(e.obj)
	case *itemExpr:
		_ = fn(e.obj) && fn(e.key)
	case *sliceExpr:
		_ = fn(e.start) && fn(e.stop) && fn(e.step)
	case *callExpr:
		_ = fn(e.fn) && all(e.args) && all(e.kwVals) && fn(e.dynArgs) && fn(e.dynKwargs)
	case *filterExpr:
		_ = fn(e.node) && all(e.args) && all(e.kwVals)
	case *testExpr:
		_ = fn(e.node) && all(e.args)
	case *binExpr:
		_ = fn(e.left) && fn(e.right)
	case *sumExpr:
		all(e.operands)
	case *unaryExpr:
		fn(e.e)
	case *compareExpr:
		_ = fn(e.first) && all(e.rest)
	case *condExpr:
		_ = fn(e.cond) && fn(e.then) && fn(e.else_)
	}
}
