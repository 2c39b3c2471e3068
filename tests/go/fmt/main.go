// Command fmtoracle prints Go's answers for xprender's fmt differential test.
//
// It reads one JSON document on stdin:
//
//	{"fmt": [{"format": "%d", "args": [<typed>...]}...],
//	 "json": [<typed>...], "ffloat": ["1e6", ...]}
//
// where a typed operand is {"t": "nil"|"bool"|"string"|"int64"|"float64"|"map"|"slice", "v": ...}
// (int64 as a JSON number or decimal string, float64 as a string for strconv.ParseFloat so
// NaN, ±Inf and -0 can be written). It writes {"fmt": [...], "json": [...], "ffloat": [...],
// "printable": [[lo, hi]...]}: fmt.Sprintf, json.Marshal and strconv.FormatFloat(f, 'f', -1, 64)
// of each input, and the ranges of code points strconv.IsPrint accepts.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"
)

type typed struct {
	T string          `json:"t"`
	V json.RawMessage `json:"v"`
}

type fmtCase struct {
	Format string  `json:"format"`
	Args   []typed `json:"args"`
}

type input struct {
	Fmt    []fmtCase `json:"fmt"`
	JSON   []typed   `json:"json"`
	FFloat []string  `json:"ffloat"`
}

type output struct {
	Fmt       []string    `json:"fmt"`
	JSON      []string    `json:"json"`
	FFloat    []string    `json:"ffloat"`
	Printable [][2]uint32 `json:"printable"`
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "fmtoracle: "+format+"\n", args...)
	os.Exit(1)
}

func decode(t typed) any {
	switch t.T {
	case "nil":
		return nil
	case "bool":
		var b bool
		if err := json.Unmarshal(t.V, &b); err != nil {
			fail("bool %s: %v", t.V, err)
		}
		return b
	case "string":
		var s string
		if err := json.Unmarshal(t.V, &s); err != nil {
			fail("string %s: %v", t.V, err)
		}
		return s
	case "int64":
		text := strings.Trim(string(t.V), `"`)
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			fail("int64 %s: %v", t.V, err)
		}
		return n
	case "float64":
		var s string
		if err := json.Unmarshal(t.V, &s); err != nil {
			fail("float64 %s must be a string: %v", t.V, err)
		}
		return parseFloat(s)
	case "map":
		var m map[string]typed
		if err := json.Unmarshal(t.V, &m); err != nil {
			fail("map %s: %v", t.V, err)
		}
		out := make(map[string]interface{}, len(m))
		for k, v := range m {
			out[k] = decode(v)
		}
		return out
	case "slice":
		var a []typed
		if err := json.Unmarshal(t.V, &a); err != nil {
			fail("slice %s: %v", t.V, err)
		}
		out := make([]interface{}, len(a))
		for i, v := range a {
			out[i] = decode(v)
		}
		return out
	}
	fail("unknown type %q", t.T)
	return nil
}

func parseFloat(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		fail("float64 %q: %v", s, err)
	}
	return f
}

func main() {
	var in input
	dec := json.NewDecoder(os.Stdin)
	if err := dec.Decode(&in); err != nil {
		fail("reading cases: %v", err)
	}
	out := output{Fmt: []string{}, JSON: []string{}, FFloat: []string{}}
	for _, c := range in.Fmt {
		args := make([]interface{}, len(c.Args))
		for i, a := range c.Args {
			args[i] = decode(a)
		}
		out.Fmt = append(out.Fmt, fmt.Sprintf(c.Format, args...))
	}
	for _, v := range in.JSON {
		b, err := json.Marshal(decode(v))
		if err != nil {
			out.JSON = append(out.JSON, "error: "+err.Error())
			continue
		}
		out.JSON = append(out.JSON, string(b))
	}
	for _, s := range in.FFloat {
		out.FFloat = append(out.FFloat, strconv.FormatFloat(parseFloat(s), 'f', -1, 64))
	}
	inRange := false
	var start uint32
	for r := uint32(0); r <= utf8.MaxRune+1; r++ {
		p := r <= utf8.MaxRune && strconv.IsPrint(rune(r))
		if p && !inRange {
			start, inRange = r, true
		} else if !p && inRange {
			out.Printable = append(out.Printable, [2]uint32{start, r - 1})
			inRange = false
		}
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		fail("writing results: %v", err)
	}
}
