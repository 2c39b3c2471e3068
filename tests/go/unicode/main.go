// Writes src/transform/unicode_tables.rs: Go's own Unicode tables as regexp/syntax reads
// them after \p and under (?i), from the toolchain that runs it (standard library only).
//
//	cd tests/go/unicode && GOTOOLCHAIN=local go run . > ../../../src/transform/unicode_tables.rs
//
// Every table is a list of inclusive code point ranges, stored as LEB128 varints:
// for each range, its distance from the end of the previous one (from 0 for the first),
// then its length minus one. Categories that follow from others (Cn, LC, the one-letter
// ones) and the fold tables (which are the tables' SimpleFold orbits) are not stored; the
// fold function (unicode.SimpleFold) is stored as runs. The program checks each of these
// shortcuts, and decodes what it wrote, against package unicode before printing.
package main

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"unicode"
)

type rng struct{ lo, hi uint32 }

// ranges lists a table's code points as sorted, merged, inclusive ranges.
func ranges(t *unicode.RangeTable) []rng {
	var out []rng
	add := func(c uint32) {
		if n := len(out); n > 0 && out[n-1].hi+1 == c {
			out[n-1].hi = c
		} else {
			out = append(out, rng{c, c})
		}
	}
	for _, r := range t.R16 {
		for c := uint32(r.Lo); c <= uint32(r.Hi); c += uint32(r.Stride) {
			add(c)
		}
	}
	for _, r := range t.R32 {
		for c := r.Lo; c <= r.Hi; c += r.Stride {
			add(c)
		}
	}
	return out
}

func varint(b *bytes.Buffer, v uint32) {
	for v >= 0x80 {
		b.WriteByte(byte(v) | 0x80)
		v >>= 7
	}
	b.WriteByte(byte(v))
}

func encode(b *bytes.Buffer, rs []rng) {
	next := uint32(0)
	for _, r := range rs {
		varint(b, r.lo-next)
		varint(b, r.hi-r.lo)
		next = r.hi + 1
	}
}

func decode(b []byte) []rng {
	var out []rng
	next, i := uint32(0), 0
	read := func() uint32 {
		var v uint32
		for shift := 0; ; shift += 7 {
			c := b[i]
			i++
			v |= uint32(c&0x7f) << shift
			if c < 0x80 {
				return v
			}
		}
	}
	for i < len(b) {
		lo := next + read()
		hi := lo + read()
		out = append(out, rng{lo, hi})
		next = hi + 1
	}
	return out
}

// canonicalName is regexp/syntax's: separators dropped, first letter upper, the rest lower.
func canonicalName(name string) string {
	var b []byte
	first := true
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' || c == '-' || c == ' ':
			continue
		case first:
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			first = false
		default:
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
		}
		b = append(b, c)
	}
	return string(b)
}

// A table list: names sorted, each table's end offset in the blob.
type list struct {
	doc, name string
	names     []string
	ends      []int
}

func addList(blob *bytes.Buffer, doc, name string, tables map[string]*unicode.RangeTable, skip map[string]bool) list {
	l := list{doc: doc, name: name}
	for n := range tables {
		if !skip[n] {
			l.names = append(l.names, n)
		}
	}
	sort.Strings(l.names)
	for _, n := range l.names {
		start := blob.Len()
		rs := ranges(tables[n])
		encode(blob, rs)
		if got := decode(blob.Bytes()[start:]); fmt.Sprint(got) != fmt.Sprint(rs) {
			panic("table " + n + " does not round-trip")
		}
		l.ends = append(l.ends, blob.Len())
	}
	return l
}

// A run of unicode.SimpleFold: count+1 code points from lo, each mapped to itself plus
// delta, or, when delta is 0, alternately to the next (+1) and the previous (-1) one.
type run struct {
	lo, count uint32
	delta     int32
}

func foldRuns() []run {
	d := func(c uint32) int32 { return int32(unicode.SimpleFold(rune(c))) - int32(c) }
	var runs []run
	for c := uint32(0); c <= unicode.MaxRune; {
		if d(c) == 0 {
			c++
			continue
		}
		// The longer of a constant-delta run and an alternating +1/-1 run.
		n := uint32(1)
		for c+n <= unicode.MaxRune && d(c+n) == d(c) && n < 2048 {
			n++
		}
		m := uint32(0)
		for c+m <= unicode.MaxRune && d(c+m) == [2]int32{1, -1}[m%2] && m < 2048 {
			m++
		}
		if m > n {
			// Keep pairs whole.
			m -= m % 2
		}
		if m > n {
			runs = append(runs, run{c, m - 1, 0})
			c += m
		} else {
			runs = append(runs, run{c, n - 1, d(c)})
			c += n
		}
	}
	// Check: every code point maps as SimpleFold does.
	for c := uint32(0); c <= unicode.MaxRune; c++ {
		want := uint32(unicode.SimpleFold(rune(c)))
		got := c
		i := sort.Search(len(runs), func(i int) bool { return runs[i].lo > c }) - 1
		if i >= 0 && c <= runs[i].lo+runs[i].count {
			r := runs[i]
			switch {
			case r.delta != 0:
				got = uint32(int32(c) + r.delta)
			case (c-r.lo)%2 == 0:
				got = c + 1
			default:
				got = c - 1
			}
		}
		if got != want {
			panic(fmt.Sprintf("SimpleFold(%#x): runs give %#x, Go %#x", c, got, want))
		}
	}
	return runs
}

// union merges tables' ranges.
func union(ts ...[]rng) []rng {
	var all []rng
	for _, t := range ts {
		all = append(all, t...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].lo < all[j].lo })
	var out []rng
	for _, r := range all {
		if n := len(out); n > 0 && r.lo <= out[n-1].hi+1 {
			out[n-1].hi = max(out[n-1].hi, r.hi)
		} else {
			out = append(out, r)
		}
	}
	return out
}

func complement(rs []rng) []rng {
	var out []rng
	next := uint32(0)
	for _, r := range rs {
		if r.lo > next {
			out = append(out, rng{next, r.lo - 1})
		}
		next = r.hi + 1
	}
	if next <= unicode.MaxRune {
		out = append(out, rng{next, unicode.MaxRune})
	}
	return out
}

// derived lists the categories left out of the tables because they follow from the
// others: Cn is what no other two-letter category holds, LC is Lu, Ll and Lt, and a
// one-letter category is its two-letter ones. The program checks that this holds.
func derived() map[string]bool {
	cat := func(n string) []rng { return ranges(unicode.Categories[n]) }
	var assigned [][]rng
	for n := range unicode.Categories {
		if len(n) == 2 && n != "Cn" && n != "LC" {
			assigned = append(assigned, cat(n))
		}
	}
	rules := map[string][]rng{
		"Cn": complement(union(assigned...)),
		"LC": union(cat("Lu"), cat("Ll"), cat("Lt")),
	}
	for n := range unicode.Categories {
		if len(n) == 1 {
			var parts [][]rng
			for m := range unicode.Categories {
				if len(m) == 2 && m[0] == n[0] && m != "LC" {
					parts = append(parts, cat(m))
				}
			}
			rules[n] = union(parts...)
		}
	}
	skip := map[string]bool{}
	for n, want := range rules {
		if fmt.Sprint(want) != fmt.Sprint(cat(n)) {
			panic("category " + n + " does not follow from the others")
		}
		skip[n] = true
	}
	return skip
}

func quoted(ns []string) string {
	var q []string
	for _, n := range ns {
		q = append(q, fmt.Sprintf("%q", n))
	}
	return strings.Join(q, ", ")
}

// foldNames lists the tables with a fold table, after checking that the table and its
// fold table together are the table's case orbits (unicode.SimpleFold), as the
// translation computes them.
func foldNames(tables, folds map[string]*unicode.RangeTable) []string {
	var ns []string
	for n, fold := range folds {
		var orbits []rng
		for _, r := range ranges(tables[n]) {
			for c := r.lo; c <= r.hi; c++ {
				orbits = append(orbits, rng{c, c})
				for f := uint32(unicode.SimpleFold(rune(c))); f != c; f = uint32(unicode.SimpleFold(rune(f))) {
					orbits = append(orbits, rng{f, f})
				}
			}
		}
		if fmt.Sprint(union(orbits)) != fmt.Sprint(union(ranges(tables[n]), ranges(fold))) {
			panic("fold table " + n + " is not the table's case orbits")
		}
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

func main() {
	var blob bytes.Buffer
	skip := derived()
	lists := []list{
		addList(&blob, "`unicode.Categories` but the derived ones", "CATEGORIES", unicode.Categories, skip),
		addList(&blob, "`unicode.Scripts`", "SCRIPTS", unicode.Scripts, nil),
	}
	foldCategories := foldNames(unicode.Categories, unicode.FoldCategory)
	foldScripts := foldNames(unicode.Scripts, unicode.FoldScript)
	var derivedNames []string
	for n := range skip {
		derivedNames = append(derivedNames, n)
	}
	sort.Strings(derivedNames)

	// regexp/syntax's category aliases, by canonical name, where the canonical name is
	// not itself a table's name. (Scripts by canonical name the translation finds by
	// canonicalising the names of SCRIPTS, after these.)
	exact := func(n string) bool { return unicode.Categories[n] != nil || unicode.Scripts[n] != nil }
	aliases := map[string]string{}
	for name, actual := range unicode.CategoryAliases {
		if c := canonicalName(name); !exact(c) {
			aliases[c] = actual
		}
	}
	var keys []string
	for k := range aliases {
		keys = append(keys, k)
	}
	sort.Strings(keys)

	runs := foldRuns()

	var o strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&o, format, a...) }
	p("//! Go's Unicode tables as `regexp/syntax` reads them: `\\p{..}` names and `(?i)` folding.\n")
	p("//!\n")
	p("//! Generated by `tests/go/unicode` from %s (`unicode.Version` %s); do not edit.\n", runtime.Version(), unicode.Version)
	p("//! Regenerate with `cd tests/go/unicode && GOTOOLCHAIN=local go run . > ../../../src/transform/unicode_tables.rs`;\n")
	p("//! `tests/go_transform.rs` checks that the file is what that prints.\n\n")
	for _, l := range lists {
		p("/// %s, sorted by name, each with the end of its ranges in `RANGES`\n", l.doc)
		p("/// (each starts where the one before it ends, the first at `%s_START`).\n", l.name)
		p("pub(super) static %s: &[(&str, u32)] = &[\n", l.name)
		for i, n := range l.names {
			p("    (%q, %d),\n", n, l.ends[i])
		}
		p("];\n\n")
	}
	p("/// The categories of `unicode.Categories` left out of `CATEGORIES`, sorted: Cn is the\n")
	p("/// code points no other category holds, LC is Lu, Ll and Lt, and a one-letter category is\n")
	p("/// the union of its two-letter ones (C with Cn).\n")
	p("pub(super) static DERIVED: &[&str] = &[%s];\n\n", quoted(derivedNames))
	names := func(doc, name string, ns []string) {
		p("/// %s\n", doc)
		p("pub(super) static %s: &[&str] = &[%s];\n\n", name, quoted(ns))
	}
	names("The categories `(?i)` folds (`unicode.FoldCategory`): with their case orbits added.", "FOLD_CATEGORIES", foldCategories)
	names("The scripts `(?i)` folds (`unicode.FoldScript`): with their case orbits added.", "FOLD_SCRIPTS", foldScripts)
	p("/// Where each list's first table starts in `RANGES`.\n")
	start := 0
	for _, l := range lists {
		p("pub(super) const %s_START: u32 = %d;\n", l.name, start)
		start = l.ends[len(l.ends)-1]
	}
	p("\n/// `unicode.CategoryAliases` by canonical name (no `_`, `-` or space; first letter upper\n")
	p("/// case, the rest lower), sorted, with the category each names.\n")
	p("pub(super) static ALIASES: &[(&str, &str)] = &[\n")
	for _, k := range keys {
		p("    (%q, %q),\n", k, aliases[k])
	}
	p("];\n\n")
	p("/// The ranges of every table: LEB128 varints, per range the distance from the previous\n")
	p("/// range's end (from 0 for a table's first) and the length minus one. %d bytes.\n", blob.Len())
	p("#[rustfmt::skip]\n")
	p("pub(super) static RANGES: &[u8] = b\"\\\n")
	bs := blob.Bytes()
	for i := 0; i < len(bs); i += 24 {
		p("    ")
		for _, c := range bs[i:min(i+24, len(bs))] {
			p("\\x%02x", c)
		}
		p("\\\n")
	}
	p("\";\n\n")
	p("/// `unicode.SimpleFold` as runs, sorted: `(lo << 11 | count, delta)` maps the count + 1\n")
	p("/// code points from lo to themselves plus delta, or, when delta is 0, alternately to the\n")
	p("/// next and the previous code point (pairs from lo). Code points in no run map to themselves.\n")
	p("#[rustfmt::skip]\n")
	p("pub(super) static FOLD: [(u32, i32); %d] = [\n", len(runs))
	for i := 0; i < len(runs); i += 6 {
		p("   ")
		for _, r := range runs[i:min(i+6, len(runs))] {
			p(" (%#x, %d),", r.lo<<11|r.count, r.delta)
		}
		p("\n")
	}
	p("];\n")
	os.Stdout.WriteString(o.String())
}
