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
		return firstErr(checkExpr(s.cond, true), checkNames(s.body, true), checkNames(s.else_, true))
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
