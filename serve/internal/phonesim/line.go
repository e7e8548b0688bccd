package phonesim

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/assaykit/assay/internal/strictjson"
	"github.com/assaykit/assay/voice"
)

// File is where a seed holds its phone line.
const File = "voice/ivr.json"

// Defaults of a persona.
const (
	DefaultFallback = "Sorry, could you say that again?"
	DefaultFarewell = "Thank you, goodbye."
)

// Bounds of a line file.
const (
	// MaxNumDigits is the most digits a gather reads.
	MaxNumDigits = 64
	// MaxHoldSeconds is the longest hold: a day.
	MaxHoldSeconds = 86400
)

// Line is a phone line (voice/ivr.json, DESIGN.md 13.8): nodes that say,
// gather, route, look a member up, hold and hand the call to a persona.
type Line struct {
	Number   string             `json:"number"`
	Start    string             `json:"start" strict:"required"`
	Nodes    map[string]Node    `json:"nodes" strict:"required"`
	Personas map[string]Persona `json:"personas"`

	// looksUp is set when a node looks a member up (the seed then needs
	// a payer policy).
	looksUp string // the pointer of the first such node
	llm     string // the pointer of the first LLM persona's "llm"
}

// Node is one step of the line. It says its Say, holds, then does one of:
// gather (wait for the agent), hand the call to a persona, look a member
// up, go to Next, or (none of these) end the call.
type Node struct {
	Say          string            `json:"say"`
	Gather       *Gather           `json:"gather"`
	Next         string            `json:"next"`
	Routes       map[string]string `json:"routes"`
	Default      string            `json:"default"`
	LookupMember string            `json:"lookup_member"`
	Found        string            `json:"found"`
	NotFound     string            `json:"not_found"`
	HoldSeconds  int               `json:"hold_seconds"`
	Persona      string            `json:"persona"`
}

// Gather is what a node waits for: digits, speech or either.
type Gather struct {
	Input       []string `json:"input" strict:"required"`
	NumDigits   int      `json:"num_digits"`
	FinishOnKey *string  `json:"finish_on_key"`
	Save        string   `json:"save"`
}

// takes reports whether the gather takes input of kind ("dtmf" or
// "speech").
func (g *Gather) takes(kind string) bool { return slices.Contains(g.Input, kind) }

// finishKey is the key that ends a digit gather ("" for none).
func (g *Gather) finishKey() string {
	if g.FinishOnKey == nil {
		return "#"
	}
	return *g.FinishOnKey
}

// Persona is someone the call is handed to: a scripted one answers from
// Answers, an LLM one (LLM true) asks a Chat Completions model for what
// Answers do not cover.
type Persona struct {
	Speaker      string   `json:"speaker"`
	Greeting     string   `json:"greeting"`
	Answers      []Answer `json:"answers"`
	Fallback     string   `json:"fallback"`
	Goodbye      []string `json:"goodbye"`
	Farewell     string   `json:"farewell"`
	LLM          bool     `json:"llm"`
	Instructions string   `json:"instructions"`
}

// Answer is said when an agent turn contains one of its When phrases.
type Answer struct {
	When []string `json:"when" strict:"required"`
	Say  string   `json:"say" strict:"required"`
}

// Parse reads a phone line strictly: an unknown or repeated key, a value of
// the wrong type, a missing required key, a next, route, default, found,
// not_found or start naming no node, a persona named by no entry of
// personas, a node no path from start reaches, a persona no node hands to,
// a node that mixes what it does (gather, persona, lookup_member), and a
// cycle of nodes none of which gathers or hands to a persona (the line would
// talk forever) are each an error naming its JSON pointer, with its line and
// column (strictjson.Errors, every problem at once).
func Parse(data []byte) (*Line, error) {
	var l Line
	var decoded strictjson.Errors
	if err := strictjson.Decode(data, &l); err != nil && !errors.As(err, &decoded) {
		return nil, err
	}
	// The line's own rules are checked on what Decode could read, so an
	// unknown key and a route to no node in the same file are reported
	// together; a value Decode refused is not judged again.
	v := &validator{data: data, line: &l, decoded: decoded, errs: decoded}
	v.check()
	if len(v.errs) > 0 {
		v.errs.Sort()
		return nil, v.errs
	}
	for name, p := range l.Personas {
		if p.Speaker == "" {
			p.Speaker = string(voice.Caller)
		}
		if p.Fallback == "" {
			p.Fallback = DefaultFallback
		}
		if p.Farewell == "" {
			p.Farewell = DefaultFarewell
		}
		l.Personas[name] = p
	}
	return &l, nil
}

type validator struct {
	data    []byte
	line    *Line
	decoded strictjson.Errors // Decode's errors
	errs    strictjson.Errors // Decode's and the line's
}

// bad records a problem at ptr, located in the file, unless Decode already
// refused the value there.
func (v *validator) bad(ptr, format string, args ...any) {
	if !v.decoded.Covers(ptr) {
		v.errs = append(v.errs, strictjson.At(v.data, ptr, format, args...))
	}
}

func nodePtr(name string) string { return strictjson.Pointer("/nodes", name) }

func (v *validator) check() {
	l := v.line
	names := sortedKeys(l.Nodes)
	if len(names) == 0 {
		v.bad("/nodes", "a line needs at least one node")
	}
	if _, ok := l.Nodes[l.Start]; !ok && len(names) > 0 {
		v.bad("/start", "%q is not a node (%s)", l.Start, list(names))
	}
	saves := map[string]bool{}
	for _, name := range names {
		if g := l.Nodes[name].Gather; g != nil && g.Save != "" {
			saves[g.Save] = true
		}
	}
	used := map[string]bool{}
	for _, name := range names {
		v.node(name, l.Nodes[name], saves, used)
	}
	for _, name := range sortedKeys(l.Personas) {
		v.persona(name, l.Personas[name], used[name])
	}
	if len(v.errs) > 0 {
		// Reachability and cycles are judged on the whole graph, only
		// once every node and name is right: a mistyped key elsewhere
		// changes the graph, and would make them report its echoes.
		return
	}
	v.reach(names)
	v.cycles(names)
}

func (v *validator) target(ptr, name string) {
	if name == "" {
		v.bad(ptr, "must name a node")
		return
	}
	if _, ok := v.line.Nodes[name]; !ok && !v.decoded.Covers("/nodes") {
		v.bad(ptr, "%q is not a node (%s)", name, list(sortedKeys(v.line.Nodes)))
	}
}

func (v *validator) node(name string, n Node, saves, used map[string]bool) {
	ptr := nodePtr(name)
	roles := 0
	for _, set := range []bool{n.Gather != nil, n.Persona != "", n.LookupMember != ""} {
		if set {
			roles++
		}
	}
	if roles > 1 {
		v.bad(ptr, "a node does one of gather, persona and lookup_member: chain nodes with next to do several")
	}
	if n.HoldSeconds < 0 || n.HoldSeconds > MaxHoldSeconds {
		v.bad(ptr+"/hold_seconds", "must be from 0 to %d, not %d", MaxHoldSeconds, n.HoldSeconds)
	}
	if n.Next != "" {
		v.target(ptr+"/next", n.Next)
	}
	if n.Gather == nil {
		if n.Routes != nil {
			v.bad(ptr+"/routes", "routes pick the node after a gather: this node has no gather")
		}
		if n.Default != "" {
			v.bad(ptr+"/default", "default picks the node after a gather: this node has no gather")
		}
		v.routes(ptr, n) // where they lead is wrong or right all the same
	} else {
		v.gather(ptr, n)
	}
	if n.LookupMember == "" {
		if n.Found != "" {
			v.bad(ptr+"/found", "found follows a lookup_member: this node has none")
		}
		if n.NotFound != "" {
			v.bad(ptr+"/not_found", "not_found follows a lookup_member: this node has none")
		}
	} else {
		if !saves[n.LookupMember] {
			v.bad(ptr+"/lookup_member", "no gather saves %q (a gather's \"save\" names the value to look up)", n.LookupMember)
		}
		v.target(ptr+"/found", n.Found)
		v.target(ptr+"/not_found", n.NotFound)
		if n.Next != "" {
			v.bad(ptr+"/next", "a lookup goes to found or not_found: next is never taken")
		}
		if v.line.looksUp == "" {
			v.line.looksUp = ptr + "/lookup_member"
		}
	}
	if n.Persona != "" {
		used[n.Persona] = true
		if _, ok := v.line.Personas[n.Persona]; !ok && !v.decoded.Covers("/personas") {
			v.bad(ptr+"/persona", "%q is not a persona (%s)", n.Persona, list(sortedKeys(v.line.Personas)))
		}
		if n.Next != "" {
			v.bad(ptr+"/next", "the call stays with the persona: next is never taken")
		}
	}
}

func (v *validator) gather(ptr string, n Node) {
	g := n.Gather
	gp := ptr + "/gather"
	if len(g.Input) == 0 {
		v.bad(gp+"/input", `must list "dtmf", "speech" or both`)
	}
	for i, in := range g.Input {
		if in != "dtmf" && in != "speech" {
			v.bad(strictjson.Pointer(gp+"/input", i), `%q is not "dtmf" or "speech"`, in)
		} else if slices.Index(g.Input, in) != i {
			v.bad(strictjson.Pointer(gp+"/input", i), "%q is listed twice", in)
		}
	}
	digits := g.takes("dtmf")
	if g.NumDigits != 0 && (g.NumDigits < 1 || g.NumDigits > MaxNumDigits) {
		v.bad(gp+"/num_digits", "must be from 1 to %d, not %d", MaxNumDigits, g.NumDigits)
	}
	if g.NumDigits != 0 && !digits {
		v.bad(gp+"/num_digits", `applies to "dtmf" input, which this gather does not take`)
	}
	if g.FinishOnKey != nil {
		if k := *g.FinishOnKey; k != "" && (len(k) != 1 || !isKey(k[0])) {
			v.bad(gp+"/finish_on_key", `must be one key of 0-9, * and #, or "" for none; not %q`, k)
		}
		if !digits {
			v.bad(gp+"/finish_on_key", `applies to "dtmf" input, which this gather does not take`)
		}
	}
	v.routes(ptr, n)
	if n.Next == "" && n.Routes == nil && n.Default == "" {
		v.bad(gp, "a gather needs next, routes or default: the node the call goes to after the input")
	}
}

// routes checks the node each of n's routes and its default name.
func (v *validator) routes(ptr string, n Node) {
	for _, key := range sortedKeys(n.Routes) {
		rp := strictjson.Pointer(ptr+"/routes", key)
		if key == "" {
			v.bad(rp, "a route's key is the input it takes: it must not be empty")
		}
		v.target(rp, n.Routes[key])
	}
	if n.Default != "" {
		v.target(ptr+"/default", n.Default)
	}
}

// isKey reports a telephone keypad key.
func isKey(c byte) bool { return c >= '0' && c <= '9' || c == '*' || c == '#' }

func (v *validator) persona(name string, p Persona, used bool) {
	ptr := strictjson.Pointer("/personas", name)
	if !used {
		v.bad(ptr, "no node hands the call to persona %q", name)
	}
	if p.Speaker != "" && p.Speaker != string(voice.Caller) && p.Speaker != string(voice.IVR) {
		v.bad(ptr+"/speaker", `must be "caller" or "ivr" (the agent is the one calling), not %q`, p.Speaker)
	}
	phrase := func(pp, s string) {
		if voice.Normalize(s) == "" {
			v.bad(pp, "%q has no words to match once normalised (fillers and punctuation are ignored)", s)
		}
	}
	for i, a := range p.Answers {
		ap := strictjson.Pointer(ptr+"/answers", i)
		if len(a.When) == 0 {
			v.bad(ap+"/when", "must list at least one phrase")
		}
		for j, w := range a.When {
			phrase(strictjson.Pointer(ap+"/when", j), w)
		}
	}
	for j, g := range p.Goodbye {
		phrase(strictjson.Pointer(ptr+"/goodbye", j), g)
	}
	if p.Instructions != "" && !p.LLM {
		v.bad(ptr+"/instructions", "instructions are for an LLM persona (\"llm\": true)")
	}
	if p.LLM && v.line.llm == "" {
		v.line.llm = ptr + "/llm"
	}
}

// edges are a node's outgoing names: every node the call can go to next.
func (n Node) edges() []string {
	var out []string
	for _, e := range []string{n.Next, n.Default, n.Found, n.NotFound} {
		if e != "" {
			out = append(out, e)
		}
	}
	for _, k := range sortedKeys(n.Routes) {
		out = append(out, n.Routes[k])
	}
	return out
}

// waits reports whether the call stops at the node for the agent.
func (n Node) waits() bool { return n.Gather != nil || n.Persona != "" }

func (v *validator) reach(names []string) {
	seen := map[string]bool{v.line.Start: true}
	queue := []string{v.line.Start}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, e := range v.line.Nodes[n].edges() {
			if !seen[e] {
				seen[e] = true
				queue = append(queue, e)
			}
		}
	}
	for _, name := range names {
		if !seen[name] {
			v.bad(nodePtr(name), "no path from start %q reaches node %q", v.line.Start, name)
		}
	}
}

// cycles finds a cycle among nodes that do not wait: the line would go
// round it without ever letting the agent speak.
func (v *validator) cycles(names []string) {
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var stack []string
	var visit func(n string) bool
	visit = func(n string) bool {
		color[n] = grey
		stack = append(stack, n)
		for _, e := range v.line.Nodes[n].edges() {
			if v.line.Nodes[e].waits() {
				continue
			}
			switch color[e] {
			case grey:
				i := slices.Index(stack, e)
				loop := append(slices.Clone(stack[i:]), e)
				v.bad(nodePtr(e), "the nodes %s form a cycle in which no node gathers or hands the call to a persona: the line would talk forever", strings.Join(loop, " -> "))
				return true
			case white:
				if visit(e) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[n] = black
		return false
	}
	for _, name := range names {
		if color[name] == white && !v.line.Nodes[name].waits() {
			if visit(name) {
				return // one cycle is enough to say what to fix
			}
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// list names the nodes or personas there are, for an error message.
func list(names []string) string {
	switch {
	case len(names) == 0:
		return "there are none"
	case len(names) > 10:
		return "the first are " + strings.Join(quoteAll(names[:10]), ", ")
	}
	return "there are " + strings.Join(quoteAll(names), ", ")
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = fmt.Sprintf("%q", x)
	}
	return out
}
