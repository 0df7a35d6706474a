package jinja

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// parser builds the syntax tree from tokens, following the grammar of Jinja2's
// parser (jinja2/parser.py) so that precedence and error cases agree.
type parser struct {
	toks []token
	pos  int
	// macroNames records, while a macro body is parsed, whether it names caller,
	// varargs or kwargs.
	macroNames []map[string]bool
	// nesting counts open expressions and blocks, so that hostile input cannot
	// exhaust the Go stack.
	nesting int
	// loops counts the for bodies break and continue may leave; a macro or
	// call block body starts again from zero, as the Python function Jinja2
	// compiles it to does.
	loops int
}

// maxNesting bounds how deeply expressions and blocks may nest.
const maxNesting = 256

func (p *parser) enter() error {
	p.nesting++
	if p.nesting > maxNesting {
		return syntaxError(p.cur().line, "template nests deeper than %d levels", maxNesting)
	}
	return nil
}

func (p *parser) leave() { p.nesting-- }

func (p *parser) cur() token  { return p.toks[p.pos] }
func (p *parser) peek() token { return p.toks[min(p.pos+1, len(p.toks)-1)] }
func (p *parser) next() token {
	t := p.toks[p.pos]
	if p.pos < len(p.toks)-1 {
		p.pos++
	}
	return t
}

func (p *parser) isOp(op string) bool {
	t := p.cur()
	return t.kind == tokOp && t.val == op
}

func (p *parser) isName(name string) bool {
	t := p.cur()
	return t.kind == tokName && t.val == name
}

func (p *parser) skipOp(op string) bool {
	if p.isOp(op) {
		p.next()
		return true
	}
	return false
}

func (p *parser) skipName(name string) bool {
	if p.isName(name) {
		p.next()
		return true
	}
	return false
}

// describe names a token as Jinja2's error messages do.
func describe(t token) string {
	switch t.kind {
	case tokEOF:
		return "end of template"
	case tokBlockEnd:
		return "end of statement block"
	case tokVarEnd:
		return "end of print statement"
	case tokBlockBegin:
		return "begin of statement block"
	case tokVarBegin:
		return "begin of print statement"
	case tokName, tokOp:
		return t.val
	case tokString:
		return "string"
	case tokInt:
		return "integer"
	case tokFloat:
		return "float"
	}
	return "data"
}

func (p *parser) expectOp(op string) error {
	if !p.skipOp(op) {
		t := p.cur()
		if t.kind == tokEOF {
			return syntaxError(t.line, "unexpected end of template, expected '%s'.", op)
		}
		return syntaxError(t.line, "expected token '%s', got '%s'", op, describe(t))
	}
	return nil
}

func (p *parser) expectName() (string, error) {
	t := p.cur()
	if t.kind != tokName {
		return "", syntaxError(t.line, "expected token 'name', got '%s'", describe(t))
	}
	p.next()
	return t.val, nil
}

func (p *parser) expectBlockEnd() error {
	t := p.cur()
	if t.kind != tokBlockEnd {
		return syntaxError(t.line, "expected token 'end of statement block', got '%s'", describe(t))
	}
	p.next()
	return nil
}

// parseTemplate parses the whole token stream.
func (p *parser) parseTemplate() ([]stmt, error) {
	body, end, err := p.subparse(nil)
	if err != nil {
		return nil, err
	}
	if end != "" {
		return nil, syntaxError(p.cur().line, "Encountered unknown tag '%s'.", end)
	}
	return body, nil
}

// subparse parses statements until a block tag whose name is in ends, and
// returns that name with the parser positioned after it (before the tag's own
// arguments). At the end of the template it returns "".
func (p *parser) subparse(ends []string) ([]stmt, string, error) {
	var body []stmt
	for {
		t := p.cur()
		switch t.kind {
		case tokEOF:
			if len(ends) > 0 {
				return nil, "", syntaxError(t.line, "Unexpected end of template. Jinja was looking for the following tags: %s. The innermost block that needs to be closed is '%s'.", quoteTags(ends), blockOf(ends))
			}
			return body, "", nil
		case tokData:
			p.next()
			body = append(body, &dataStmt{text: t.val})
		case tokVarBegin:
			p.next()
			e, err := p.parseTuple(true, nil, false)
			if err != nil {
				return nil, "", err
			}
			if p.cur().kind != tokVarEnd {
				return nil, "", syntaxError(p.cur().line, "expected token 'end of print statement', got '%s'", describe(p.cur()))
			}
			p.next()
			body = append(body, &outputStmt{e: e, line: t.line})
		case tokBlockBegin:
			p.next()
			nt := p.cur()
			if nt.kind != tokName {
				return nil, "", syntaxError(nt.line, "tag name expected")
			}
			for _, e := range ends {
				if nt.val == e {
					p.next()
					return body, e, nil
				}
			}
			s, err := p.parseStatement()
			if err != nil {
				return nil, "", err
			}
			if s != nil {
				body = append(body, s)
			}
		default:
			return nil, "", syntaxError(t.line, "unexpected '%s'", describe(t))
		}
	}
}

func quoteTags(ends []string) string {
	q := make([]string, len(ends))
	for i, e := range ends {
		q[i] = "'" + e + "'"
	}
	return strings.Join(q, " or ")
}

func blockOf(ends []string) string {
	for _, e := range ends {
		if strings.HasPrefix(e, "end") {
			return strings.TrimPrefix(e, "end")
		}
	}
	return ends[0]
}

// parseStatement parses one block tag; the current token is its name.
func (p *parser) parseStatement() (stmt, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	t := p.next()
	switch t.val {
	case "if":
		return p.parseIf()
	case "for":
		return p.parseFor(t.line)
	case "set":
		return p.parseSet(t.line)
	case "macro":
		return p.parseMacro()
	case "call":
		return p.parseCallBlock(t.line)
	case "filter":
		return p.parseFilterBlock(t.line)
	case "with":
		return p.parseWith()
	case "print":
		e, err := p.parseTuple(true, nil, false)
		if err != nil {
			return nil, err
		}
		return &outputStmt{e: e, line: t.line}, p.expectBlockEnd()
	case "break", "continue":
		if err := p.expectBlockEnd(); err != nil {
			return nil, err
		}
		if p.loops == 0 {
			return nil, &Error{Kind: "SyntaxError", Message: fmt.Sprintf("'%s' outside loop", t.val), Line: t.line}
		}
		if t.val == "break" {
			return &breakStmt{line: t.line}, nil
		}
		return &continueStmt{line: t.line}, nil
	case "generation":
		// transformers' AssistantTracker: the body renders unchanged. It is a
		// call block underneath ({% call _generation_support() %}), so the
		// body is a caller macro: no break or continue reaches an enclosing
		// loop, and kwargs and varargs there are its own (empty).
		if err := p.expectBlockEnd(); err != nil {
			return nil, err
		}
		caller := &macroDef{name: "caller"}
		if err := p.parseMacroBody(caller, "endgeneration"); err != nil {
			return nil, err
		}
		call := &callExpr{fn: &constExpr{v: Func(generationSupport)}, line: t.line}
		return &callBlockStmt{call: call, caller: caller, line: t.line}, nil
	case "block":
		// Without inheritance a block renders in place.
		if _, err := p.expectName(); err != nil {
			return nil, err
		}
		p.skipName("scoped")
		p.skipName("required")
		if err := p.expectBlockEnd(); err != nil {
			return nil, err
		}
		body, _, err := p.subparse([]string{"endblock"})
		if err != nil {
			return nil, err
		}
		if p.cur().kind == tokName {
			p.next()
		}
		return &withStmt{body: body}, p.expectBlockEnd()
	case "include", "import", "from", "extends":
		return nil, syntaxError(t.line, "'%s' needs a template loader, which chat templates do not have", t.val)
	}
	return nil, syntaxError(t.line, "Encountered unknown tag '%s'.", t.val)
}

// parseIf parses an if tag, its elif chain in a loop: a chain is as long
// as the template makes it, and nests no deeper in Go.
func (p *parser) parseIf() (stmt, error) {
	first := &ifStmt{}
	for node := first; ; {
		cond, err := p.parseTuple(false, nil, false)
		if err != nil {
			return nil, err
		}
		if err := p.expectBlockEnd(); err != nil {
			return nil, err
		}
		node.cond = cond
		body, end, err := p.subparse([]string{"elif", "else", "endif"})
		if err != nil {
			return nil, err
		}
		node.body = body
		switch end {
		case "elif":
			elif := &ifStmt{}
			node.else_, node = []stmt{elif}, elif
			continue
		case "else":
			if err := p.expectBlockEnd(); err != nil {
				return nil, err
			}
			if node.else_, _, err = p.subparse([]string{"endif"}); err != nil {
				return nil, err
			}
		}
		return first, p.expectBlockEnd()
	}
}

func (p *parser) parseFor(line int) (stmt, error) {
	target, err := p.parseAssignTarget(false, "in")
	if err != nil {
		return nil, err
	}
	if !p.skipName("in") {
		return nil, syntaxError(p.cur().line, "expected token 'in', got '%s'", describe(p.cur()))
	}
	iter, err := p.parseTuple(false, []string{"recursive"}, false)
	if err != nil {
		return nil, err
	}
	node := &forStmt{target: target, iter: iter, line: line}
	if p.skipName("if") {
		if node.filter, err = p.parseExpression(true); err != nil {
			return nil, err
		}
	}
	node.recursive = p.skipName("recursive")
	if err := p.expectBlockEnd(); err != nil {
		return nil, err
	}
	p.loops++
	body, end, err := p.subparse([]string{"endfor", "else"})
	p.loops--
	if err != nil {
		return nil, err
	}
	node.body = body
	if end == "else" {
		if err := p.expectBlockEnd(); err != nil {
			return nil, err
		}
		if node.else_, _, err = p.subparse([]string{"endfor"}); err != nil {
			return nil, err
		}
	}
	return node, p.expectBlockEnd()
}

func (p *parser) parseSet(line int) (stmt, error) {
	target, err := p.parseAssignTarget(true, "")
	if err != nil {
		return nil, err
	}
	if p.skipOp("=") {
		value, err := p.parseTuple(true, nil, false)
		if err != nil {
			return nil, err
		}
		return &setStmt{target: target, value: value, line: line}, p.expectBlockEnd()
	}
	filters, err := p.parseFilterChain()
	if err != nil {
		return nil, err
	}
	if err := p.expectBlockEnd(); err != nil {
		return nil, err
	}
	body, _, err := p.subparse([]string{"endset"})
	if err != nil {
		return nil, err
	}
	return &setBlockStmt{target: target, filters: filters, body: body, line: line}, p.expectBlockEnd()
}

// parseFilterChain parses "| f(args) | g" after a set or filter tag; the
// leading pipe is optional for the filter tag.
func (p *parser) parseFilterChain() ([]*filterExpr, error) {
	var out []*filterExpr
	first := true
	for p.isOp("|") || (first && p.cur().kind == tokName) {
		if p.isOp("|") {
			p.next()
		}
		first = false
		f, err := p.parseFilterCall(nil)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

func (p *parser) parseFilterBlock(line int) (stmt, error) {
	filters, err := p.parseFilterChain()
	if err != nil {
		return nil, err
	}
	if err := p.expectBlockEnd(); err != nil {
		return nil, err
	}
	body, _, err := p.subparse([]string{"endfilter"})
	if err != nil {
		return nil, err
	}
	return &filterBlockStmt{filters: filters, body: body, line: line}, p.expectBlockEnd()
}

func (p *parser) parseWith() (stmt, error) {
	node := &withStmt{}
	for p.cur().kind != tokBlockEnd {
		if len(node.targets) > 0 {
			if err := p.expectOp(","); err != nil {
				return nil, err
			}
		}
		target, err := p.parseAssignTarget(false, "")
		if err != nil {
			return nil, err
		}
		if err := p.expectOp("="); err != nil {
			return nil, err
		}
		value, err := p.parseExpression(true)
		if err != nil {
			return nil, err
		}
		node.targets = append(node.targets, target)
		node.values = append(node.values, value)
	}
	p.next()
	body, _, err := p.subparse([]string{"endwith"})
	if err != nil {
		return nil, err
	}
	node.body = body
	return node, p.expectBlockEnd()
}

// parseSignature parses "(a, b=default, ...)" of a macro or call block.
func (p *parser) parseSignature(m *macroDef) error {
	if err := p.expectOp("("); err != nil {
		return err
	}
	for !p.isOp(")") {
		if len(m.params) > 0 {
			if err := p.expectOp(","); err != nil {
				return err
			}
		}
		name, err := p.expectName()
		if err != nil {
			return err
		}
		if p.skipOp("=") {
			d, err := p.parseExpression(true)
			if err != nil {
				return err
			}
			m.defaults = append(m.defaults, d)
		} else if len(m.defaults) > 0 {
			return syntaxError(p.cur().line, "non-default argument follows default argument")
		}
		m.params = append(m.params, name)
	}
	p.next()
	return nil
}

// parseMacroBody parses a macro or call-block body and records which of the
// special names it uses.
func (p *parser) parseMacroBody(m *macroDef, end string) error {
	p.macroNames = append(p.macroNames, map[string]bool{})
	loops := p.loops
	p.loops = 0
	body, _, err := p.subparse([]string{end})
	p.loops = loops
	names := p.macroNames[len(p.macroNames)-1]
	p.macroNames = p.macroNames[:len(p.macroNames)-1]
	if err != nil {
		return err
	}
	m.body = body
	m.usesCaller, m.usesVarargs, m.usesKwargs = names["caller"], names["varargs"], names["kwargs"]
	return p.expectBlockEnd()
}

func (p *parser) parseMacro() (stmt, error) {
	name, err := p.expectName()
	if err != nil {
		return nil, err
	}
	m := &macroDef{name: name}
	if err := p.parseSignature(m); err != nil {
		return nil, err
	}
	if err := p.expectBlockEnd(); err != nil {
		return nil, err
	}
	if err := p.parseMacroBody(m, "endmacro"); err != nil {
		return nil, err
	}
	return &macroStmt{name: name, m: m}, nil
}

func (p *parser) parseCallBlock(line int) (stmt, error) {
	caller := &macroDef{name: "caller"}
	if p.isOp("(") {
		if err := p.parseSignature(caller); err != nil {
			return nil, err
		}
	}
	e, err := p.parseExpression(true)
	if err != nil {
		return nil, err
	}
	call, ok := e.(*callExpr)
	if !ok {
		return nil, syntaxError(line, "expected call")
	}
	if err := p.expectBlockEnd(); err != nil {
		return nil, err
	}
	if err := p.parseMacroBody(caller, "endcall"); err != nil {
		return nil, err
	}
	return &callBlockStmt{call: call, caller: caller, line: line}, nil
}

// parseAssignTarget parses the names a for or set assigns: a name, a
// namespace attribute (set only), or several names separated by commas.
func (p *parser) parseAssignTarget(withNamespace bool, endName string) (expr, error) {
	parseOne := func() (expr, error) {
		t := p.cur()
		if t.kind != tokName {
			return nil, syntaxError(t.line, "expected token 'name', got '%s'", describe(t))
		}
		p.next()
		if withNamespace && p.isOp(".") {
			p.next()
			attr, err := p.expectName()
			if err != nil {
				return nil, err
			}
			return &attrExpr{obj: &nameExpr{name: t.val, line: t.line}, name: attr, line: t.line}, nil
		}
		if t.val == "true" || t.val == "false" || t.val == "none" || t.val == "True" || t.val == "False" || t.val == "None" {
			return nil, syntaxError(t.line, "Can't assign to special constant '%s'", t.val)
		}
		return &nameExpr{name: t.val, line: t.line}, nil
	}
	first, err := parseOne()
	if err != nil {
		return nil, err
	}
	if _, isAttr := first.(*attrExpr); isAttr || !p.isOp(",") {
		return first, nil
	}
	tup := &tupleExpr{items: []expr{first}}
	for p.skipOp(",") {
		if p.cur().kind != tokName || p.isName(endName) {
			break
		}
		n, err := parseOne()
		if err != nil {
			return nil, err
		}
		tup.items = append(tup.items, n)
	}
	return tup, nil
}

// parseTuple parses comma-separated expressions; a single one without a comma
// is returned as itself. withCond allows "a if b else c" at the top.
func (p *parser) parseTuple(withCond bool, extraEnd []string, explicitParens bool) (expr, error) {
	var items []expr
	isTuple := false
	for {
		if len(items) > 0 {
			if !p.skipOp(",") {
				break
			}
			isTuple = true
		}
		if p.tupleEnds(extraEnd) {
			break
		}
		e, err := p.parseExpression(withCond)
		if err != nil {
			return nil, err
		}
		items = append(items, e)
	}
	if !isTuple {
		if len(items) == 1 {
			return items[0], nil
		}
		if !explicitParens {
			return nil, syntaxError(p.cur().line, "Expected an expression, got '%s'", describe(p.cur()))
		}
	}
	return &tupleExpr{items: items}, nil
}

func (p *parser) tupleEnds(extraEnd []string) bool {
	t := p.cur()
	switch t.kind {
	case tokVarEnd, tokBlockEnd, tokEOF:
		return true
	case tokOp:
		return t.val == ")"
	case tokName:
		for _, e := range extraEnd {
			if t.val == e {
				return true
			}
		}
	}
	return false
}

func (p *parser) parseExpression(withCond bool) (expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	if withCond {
		return p.parseCondExpr()
	}
	return p.parseOr()
}

func (p *parser) parseCondExpr() (expr, error) {
	e, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	for p.skipName("if") {
		cond, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		var else_ expr
		if p.skipName("else") {
			if else_, err = p.parseElse(); err != nil {
				return nil, err
			}
		}
		e = &condExpr{cond: cond, then: e, else_: else_}
	}
	return e, nil
}

// parseElse parses the else branch of a conditional expression, which
// nests: a if b else c if d else ...
func (p *parser) parseElse() (expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	return p.parseCondExpr()
}

func (p *parser) parseOr() (expr, error) { return p.parseBinary(p.parseAnd, binaryNode, "or") }

func (p *parser) parseAnd() (expr, error) { return p.parseBinary(p.parseNot, binaryNode, "and") }

func (p *parser) parseNot() (expr, error) {
	if p.isName("not") {
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		line := p.next().line
		e, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		return &unaryExpr{op: "not", e: e, line: line}, nil
	}
	return p.parseCompare()
}

var compareOps = map[string]bool{"==": true, "!=": true, "<": true, ">": true, "<=": true, ">=": true}

func (p *parser) parseCompare() (expr, error) {
	line := p.cur().line
	first, err := p.parseMath1()
	if err != nil {
		return nil, err
	}
	node := &compareExpr{first: first, line: line}
	for {
		var op string
		t := p.cur()
		switch {
		case t.kind == tokOp && compareOps[t.val]:
			op = t.val
			p.next()
		case p.isName("in"):
			op = "in"
			p.next()
		case p.isName("not") && p.peek().kind == tokName && p.peek().val == "in":
			op = "notin"
			p.next()
			p.next()
		}
		if op == "" {
			break
		}
		e, err := p.parseMath1()
		if err != nil {
			return nil, err
		}
		node.ops = append(node.ops, op)
		node.rest = append(node.rest, e)
	}
	if len(node.ops) == 0 {
		return first, nil
	}
	return node, nil
}

func (p *parser) parseMath1() (expr, error) {
	return p.parseBinary(p.parseConcat, addOperand, "+", "-")
}

// addOperand builds left op right for + and -, gathering chains of '+' into
// one sumExpr.
func addOperand(left expr, op token, right expr) expr {
	if op.val != "+" {
		return &binExpr{op: op.val, left: left, right: right, line: op.line}
	}
	switch l := left.(type) {
	case *sumExpr:
		l.operands = append(l.operands, right)
		l.lines = append(l.lines, op.line)
		return l
	case *binExpr:
		if l.op == "+" {
			return &sumExpr{operands: []expr{l.left, l.right, right}, lines: []int{l.line, op.line}}
		}
	}
	return &binExpr{op: "+", left: left, right: right, line: op.line}
}

func (p *parser) parseConcat() (expr, error) { return p.parseBinary(p.parseMath2, binaryNode, "~") }

func (p *parser) parseMath2() (expr, error) {
	return p.parseBinary(p.parsePow, binaryNode, "*", "/", "//", "%")
}

func (p *parser) parsePow() (expr, error) {
	return p.parseBinary(func() (expr, error) { return p.parseUnary(true) }, binaryNode, "**")
}

// parseBinary parses operand (op operand)*, left-associative, for one
// precedence level of Jinja2's grammar; ops are operator tokens or, for "and"
// and "or", names. build makes the node for left op right.
func (p *parser) parseBinary(operand func() (expr, error), build func(expr, token, expr) expr, ops ...string) (expr, error) {
	left, err := operand()
	if err != nil {
		return nil, err
	}
	for p.atOperator(ops) {
		op := p.next()
		right, err := operand()
		if err != nil {
			return nil, err
		}
		left = build(left, op, right)
	}
	return left, nil
}

func (p *parser) atOperator(ops []string) bool {
	t := p.cur()
	return (t.kind == tokOp || t.kind == tokName) && slices.Contains(ops, t.val)
}

func binaryNode(left expr, op token, right expr) expr {
	return &binExpr{op: op.val, left: left, right: right, line: op.line}
}

func (p *parser) parseUnary(withFilter bool) (expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	var node expr
	var err error
	if p.isOp("-") || p.isOp("+") {
		t := p.next()
		e, err := p.parseUnary(false)
		if err != nil {
			return nil, err
		}
		node = &unaryExpr{op: t.val, e: e, line: t.line}
		if b, ok := e.(*bigIntExpr); ok && t.val == "-" && b.isMinInt() {
			node = &constExpr{v: math.MinInt} // -9223372036854775808 fits
		}
		if c, ok := e.(*constExpr); ok && isNumber(c.v) {
			// A negative literal: no need to negate it at every render.
			if v, err := unary(t.val, c.v); err == nil {
				node = &constExpr{v: v}
			}
		}
	} else if node, err = p.parsePrimary(); err != nil {
		return nil, err
	}
	if node, err = p.parsePostfix(node); err != nil {
		return nil, err
	}
	if withFilter {
		return p.parseFilterExpr(node)
	}
	return node, nil
}

func (p *parser) parsePrimary() (expr, error) {
	t := p.cur()
	switch t.kind {
	case tokName:
		p.next()
		switch t.val {
		case "true", "True":
			return &constExpr{v: true}, nil
		case "false", "False":
			return &constExpr{v: false}, nil
		case "none", "None":
			return &constExpr{v: nil}, nil
		}
		// Jinja2 looks for caller, varargs and kwargs in the whole macro body,
		// nested macros included.
		for _, names := range p.macroNames {
			names[t.val] = true
		}
		return &nameExpr{name: t.val, line: t.line}, nil
	case tokString:
		p.next()
		s := t.val
		for p.cur().kind == tokString {
			s += p.next().val
		}
		return &constExpr{v: s}, nil
	case tokInt:
		p.next()
		return intLiteral(t), nil
	case tokFloat:
		p.next()
		f, err := strconv.ParseFloat(t.val, 64)
		if err != nil && !math.IsInf(f, 0) {
			return nil, syntaxError(t.line, "invalid float %s", t.val)
		}
		return &constExpr{v: f}, nil
	case tokOp:
		switch t.val {
		case "(":
			p.next()
			e, err := p.parseTuple(true, nil, true)
			if err != nil {
				return nil, err
			}
			return e, p.expectOp(")")
		case "[":
			return p.parseList()
		case "{":
			return p.parseDict()
		}
	}
	if t.kind == tokEOF || t.kind == tokVarEnd || t.kind == tokBlockEnd {
		return nil, syntaxError(t.line, "Expected an expression, got '%s'", describe(t))
	}
	return nil, syntaxError(t.line, "unexpected '%s'", describe(t))
}

// intLiteral reads an integer literal as Python's int(text, 0). One beyond
// 64 bits is a bigIntExpr, which fails when it is evaluated (see intops.go).
func intLiteral(t token) expr {
	n, ok := new(big.Int).SetString(t.val, 0)
	if !ok {
		return &constExpr{v: 0}
	}
	if n.IsInt64() {
		return &constExpr{v: int(n.Int64())}
	}
	return &bigIntExpr{text: t.val, line: t.line}
}

func (p *parser) parseList() (expr, error) {
	p.next()
	node := &listExpr{}
	for !p.isOp("]") {
		if len(node.items) > 0 {
			if err := p.expectOp(","); err != nil {
				return nil, err
			}
			if p.isOp("]") {
				break
			}
		}
		e, err := p.parseExpression(true)
		if err != nil {
			return nil, err
		}
		node.items = append(node.items, e)
	}
	p.next()
	return node, nil
}

func (p *parser) parseDict() (expr, error) {
	p.next()
	node := &dictExpr{}
	for !p.isOp("}") {
		if len(node.keys) > 0 {
			if err := p.expectOp(","); err != nil {
				return nil, err
			}
			if p.isOp("}") {
				break
			}
		}
		k, err := p.parseExpression(true)
		if err != nil {
			return nil, err
		}
		if err := p.expectOp(":"); err != nil {
			return nil, err
		}
		v, err := p.parseExpression(true)
		if err != nil {
			return nil, err
		}
		node.keys = append(node.keys, k)
		node.vals = append(node.vals, v)
	}
	p.next()
	return node, nil
}

// parsePostfix parses attribute access, subscripts and calls after a primary.
func (p *parser) parsePostfix(node expr) (expr, error) {
	for {
		var err error
		switch {
		case p.isOp(".") || p.isOp("["):
			node, err = p.parseSubscript(node)
		case p.isOp("("):
			node, err = p.parseCall(node)
		default:
			return node, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func (p *parser) parseFilterExpr(node expr) (expr, error) {
	for {
		var err error
		switch {
		case p.isOp("|"):
			p.next()
			node, err = p.parseFilterCall(node)
		case p.isName("is"):
			node, err = p.parseTest(node)
		case p.isOp("("):
			node, err = p.parseCall(node)
		default:
			return node, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func (p *parser) parseSubscript(node expr) (expr, error) {
	t := p.next()
	if t.val == "." {
		a := p.cur()
		switch a.kind {
		case tokName:
			p.next()
			return &attrExpr{obj: node, name: a.val, line: a.line}, nil
		case tokInt:
			p.next()
			return &itemExpr{obj: node, key: intLiteral(a), line: a.line}, nil
		}
		return nil, syntaxError(a.line, "expected name or number")
	}
	var keys []expr
	for !p.isOp("]") {
		if len(keys) > 0 {
			if err := p.expectOp(","); err != nil {
				return nil, err
			}
			if p.isOp("]") {
				break
			}
		}
		k, err := p.parseSubscribed()
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	p.next()
	if len(keys) == 0 {
		return nil, syntaxError(t.line, "expected an expression, got ']'")
	}
	var key expr = keys[0]
	if len(keys) > 1 {
		key = &tupleExpr{items: keys}
	}
	return &itemExpr{obj: node, key: key, line: t.line}, nil
}

// parseSubscribed parses one subscript: an expression or a slice a:b:c.
func (p *parser) parseSubscribed() (expr, error) {
	var parts [3]expr
	if !p.isOp(":") {
		e, err := p.parseExpression(true)
		if err != nil {
			return nil, err
		}
		if !p.isOp(":") {
			return e, nil
		}
		parts[0] = e
	}
	p.next() // ':'
	if !p.isOp("]") && !p.isOp(",") && !p.isOp(":") {
		e, err := p.parseExpression(true)
		if err != nil {
			return nil, err
		}
		parts[1] = e
	}
	if p.skipOp(":") {
		if !p.isOp("]") && !p.isOp(",") {
			e, err := p.parseExpression(true)
			if err != nil {
				return nil, err
			}
			parts[2] = e
		}
	}
	return &sliceExpr{start: parts[0], stop: parts[1], step: parts[2]}, nil
}

// parseArgs parses a call's argument list after "(".
func (p *parser) parseArgs() (args []expr, kwNames []Value, kwVals []expr, dynArgs, dynKwargs expr, err error) {
	if err = p.expectOp("("); err != nil {
		return
	}
	for !p.isOp(")") {
		if len(args)+len(kwNames) > 0 || dynArgs != nil || dynKwargs != nil {
			if err = p.expectOp(","); err != nil {
				return
			}
			if p.isOp(")") {
				break
			}
		}
		switch {
		case p.isOp("*"):
			p.next()
			dynArgs, err = p.parseExpression(true)
		case p.isOp("**"):
			p.next()
			dynKwargs, err = p.parseExpression(true)
		case p.cur().kind == tokName && p.peek().kind == tokOp && p.peek().val == "=":
			name := p.next().val
			p.next()
			var v expr
			v, err = p.parseExpression(true)
			if slices.Contains(kwNames, Value(name)) {
				err = &Error{Kind: "SyntaxError", Message: "keyword argument repeated: " + name, Line: p.cur().line}
				return
			}
			kwNames = append(kwNames, name)
			kwVals = append(kwVals, v)
		default:
			if len(kwNames) > 0 || dynArgs != nil || dynKwargs != nil {
				err = syntaxError(p.cur().line, "Invalid argument syntax")
				return
			}
			var v expr
			v, err = p.parseExpression(true)
			args = append(args, v)
		}
		if err != nil {
			return
		}
	}
	p.next()
	return
}

func (p *parser) parseCall(node expr) (expr, error) {
	line := p.cur().line
	args, kwNames, kwVals, dynArgs, dynKwargs, err := p.parseArgs()
	if err != nil {
		return nil, err
	}
	return &callExpr{fn: node, args: args, kwNames: kwNames, kwVals: kwVals, dynArgs: dynArgs, dynKwargs: dynKwargs, line: line}, nil
}

// parseFilterCall parses "name(args)" after a pipe.
func (p *parser) parseFilterCall(node expr) (*filterExpr, error) {
	t := p.cur()
	name, err := p.expectName()
	if err != nil {
		return nil, err
	}
	for p.isOp(".") {
		p.next()
		part, err := p.expectName()
		if err != nil {
			return nil, err
		}
		name += "." + part
	}
	f := &filterExpr{node: node, name: name, line: t.line}
	if p.isOp("(") {
		args, kwNames, kwVals, _, _, err := p.parseArgs()
		if err != nil {
			return nil, err
		}
		f.args, f.kwNames, f.kwVals = args, kwNames, kwVals
	}
	f.fn = builtinFilters[name]
	return f, nil
}

func (p *parser) parseTest(node expr) (expr, error) {
	line := p.next().line // 'is'
	negated := p.skipName("not")
	name, err := p.expectName()
	if err != nil {
		return nil, err
	}
	for p.isOp(".") {
		p.next()
		part, err := p.expectName()
		if err != nil {
			return nil, err
		}
		name += "." + part
	}
	t := &testExpr{node: node, name: name, line: line}
	c := p.cur()
	switch {
	case p.isOp("("):
		args, _, _, _, _, err := p.parseArgs()
		if err != nil {
			return nil, err
		}
		t.args = args
	case (c.kind == tokName || c.kind == tokString || c.kind == tokInt || c.kind == tokFloat || p.isOp("[") || p.isOp("{")) &&
		!p.isName("else") && !p.isName("or") && !p.isName("and"):
		if p.isName("is") {
			return nil, syntaxError(c.line, "You cannot chain multiple tests with is")
		}
		arg, err := p.parsePrimary()
		if err != nil {
			return nil, err
		}
		if arg, err = p.parsePostfix(arg); err != nil {
			return nil, err
		}
		t.args = []expr{arg}
	}
	t.fn = builtinTests[name]
	if negated {
		return &unaryExpr{op: "not", e: t, line: line}, nil
	}
	return t, nil
}

// contextFilters are the filters Jinja2 passes the render context to, which
// its compiler therefore never evaluates ahead of time.
var contextFilters = map[string]bool{"map": true, "select": true, "reject": true, "selectattr": true, "rejectattr": true, "random": true}
