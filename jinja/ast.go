package jinja

// The syntax tree. Statements and expressions are plain structs; the compiler
// (compile.go) switches on their types once, to make closures.

type stmt interface{}
type expr interface{}

// Statements.
type (
	dataStmt   struct{ text string }
	outputStmt struct {
		e    expr
		line int
	}
	ifStmt struct {
		cond  expr
		body  []stmt
		else_ []stmt // an elif is an ifStmt alone in else_
	}
	forStmt struct {
		target    expr // nameExpr or tupleExpr of names
		iter      expr
		filter    expr // for x in xs if filter
		body      []stmt
		else_     []stmt
		recursive bool
		line      int
	}
	setStmt struct {
		target expr // nameExpr, tupleExpr or attrExpr (namespace attribute)
		value  expr
		line   int
	}
	setBlockStmt struct {
		target  expr
		filters []*filterExpr // applied to the captured body, innermost first
		body    []stmt
		line    int
	}
	macroStmt struct {
		name string
		m    *macroDef
	}
	callBlockStmt struct {
		call   *callExpr
		caller *macroDef
		line   int
	}
	filterBlockStmt struct {
		filters []*filterExpr
		body    []stmt
		line    int
	}
	withStmt struct {
		targets []expr
		values  []expr
		body    []stmt
	}
	breakStmt    struct{ line int }
	continueStmt struct{ line int }
)

// elif returns the if statement of s's elif, or nil. Walkers follow an
// elif chain in a loop: it is as long as the template makes it.
func (s *ifStmt) elif() *ifStmt {
	if len(s.else_) == 1 {
		if next, ok := s.else_[0].(*ifStmt); ok {
			return next
		}
	}
	return nil
}

// macroDef is the compiled form of a macro (or a call block's caller).
type macroDef struct {
	name     string
	params   []string
	defaults []expr // aligned to the end of params
	body     []stmt
	// usesCaller, usesVarargs, usesKwargs: whether the body names caller,
	// varargs or kwargs, which decides what calls the macro accepts (as Jinja2).
	usesCaller, usesVarargs, usesKwargs bool
}

// Expressions.
type (
	constExpr struct{ v Value }
	nameExpr  struct {
		name string
		line int
	}
	listExpr  struct{ items []expr }
	tupleExpr struct{ items []expr }
	dictExpr  struct{ keys, vals []expr }
	attrExpr  struct {
		obj  expr
		name string
		line int
	}
	itemExpr struct {
		obj  expr
		key  expr
		line int
	}
	sliceExpr struct{ start, stop, step expr } // only as itemExpr.key
	callExpr  struct {
		fn        expr
		args      []expr
		kwNames   []Value // keyword names, boxed once at compile time
		kwVals    []expr
		dynArgs   expr // *args
		dynKwargs expr // **kwargs
		line      int
	}
	filterExpr struct {
		node    expr // nil inside a filter block or set block
		name    string
		fn      filterFunc // resolved at compile time; nil if unknown (an error when run)
		args    []expr
		kwNames []Value
		kwVals  []expr
		line    int
	}
	testExpr struct {
		node expr
		name string
		fn   testFunc // resolved at compile time; nil if unknown (an error when run)
		args []expr
		line int
	}
	binExpr struct {
		op          string // + - * / // % ** ~ and or
		left, right expr
		line        int
	}
	// sumExpr is a chain a + b + c of three or more operands, evaluated left
	// to right; lines[i] is the line of the '+' before operands[i+1].
	sumExpr struct {
		operands []expr
		lines    []int
	}
	unaryExpr struct {
		op   string // not, -, +
		e    expr
		line int
	}
	compareExpr struct {
		first expr
		ops   []string // == != < > <= >= in notin
		rest  []expr
		line  int
	}
	condExpr struct {
		cond, then, else_ expr // else_ may be nil
	}
	// bigIntExpr is an int literal beyond 64 bits (see intops.go).
	bigIntExpr struct {
		text string
		line int
	}
)
