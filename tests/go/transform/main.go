// Command transform prints Go's answers for the Go-standard-library parts of
// Crossplane's transforms, for the differential test tests/go_transform.rs.
//
// It reads a JSON array of cases {"op", "a", "b", "c", "v"} on stdin and
// writes a JSON array with one {"ok": ...} or {"err": "..."} per case.
package main

import (
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/adler32"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
)

type testCase struct {
	Op string `json:"op"`
	A  string `json:"a"`
	B  string `json:"b"`
	C  string `json:"c"`
	V  any    `json:"v"`
}

type answer struct {
	Ok  any     `json:"ok"`
	Err *string `json:"err,omitempty"`
}

func ok(v any) answer { return answer{Ok: v} }

func fail(err error) answer {
	s := err.Error()
	return answer{Err: &s}
}

// floatBits is how float results travel: exact, NaN and infinities included.
func floatBits(f float64) string { return strconv.FormatUint(math.Float64bits(f), 16) }

// hashInput mirrors the transforms: a string's own bytes, anything else as JSON.
func hashInput(v any) ([]byte, error) {
	if s, isString := v.(string); isString {
		return []byte(s), nil
	}
	return json.Marshal(v)
}

func run(c testCase) answer {
	switch c.Op {
	case "parse_int":
		n, err := strconv.ParseInt(c.A, 10, 64)
		if err != nil {
			return fail(err)
		}
		return ok(strconv.FormatInt(n, 10))
	case "parse_bool":
		b, err := strconv.ParseBool(c.A)
		if err != nil {
			return fail(err)
		}
		return ok(b)
	case "parse_float":
		f, err := strconv.ParseFloat(c.A, 64)
		if err != nil {
			return fail(err)
		}
		return ok(floatBits(f))
	case "format_float":
		f, err := strconv.ParseFloat(c.A, 64)
		if err != nil {
			return fail(err)
		}
		return ok(strconv.FormatFloat(f, 'f', -1, 64))
	case "regexp":
		re, err := regexp.Compile(c.A)
		if err != nil {
			return fail(err)
		}
		groups := re.FindStringSubmatch(c.B)
		if groups == nil {
			return ok(nil)
		}
		return ok(groups)
	case "base64":
		b, err := base64.StdEncoding.DecodeString(c.A)
		if err != nil {
			return fail(err)
		}
		return ok(string(b))
	case "sha1", "sha256", "sha512", "adler32":
		b, err := hashInput(c.V)
		if err != nil {
			return fail(err)
		}
		switch c.Op {
		case "sha1":
			s := sha1.Sum(b)
			return ok(hex.EncodeToString(s[:]))
		case "sha256":
			s := sha256.Sum256(b)
			return ok(hex.EncodeToString(s[:]))
		case "sha512":
			s := sha512.Sum512(b)
			return ok(hex.EncodeToString(s[:]))
		default:
			return ok(strconv.FormatUint(uint64(adler32.Checksum(b)), 10))
		}
	case "bytes":
		// A string of any bytes (base64 in A, as the FromBase64 convert makes them), then
		// the operation B (with the format C); results as the hex of their bytes.
		raw, err := base64.StdEncoding.DecodeString(c.A)
		if err != nil {
			return fail(err)
		}
		s := string(raw)
		var out string
		switch c.B {
		case "sha1":
			h := sha1.Sum([]byte(s))
			out = string(h[:])
		case "sha256":
			h := sha256.Sum256([]byte(s))
			out = string(h[:])
		case "sha512":
			h := sha512.Sum512([]byte(s))
			out = string(h[:])
		case "adler32":
			out = strconv.FormatUint(uint64(adler32.Checksum([]byte(s))), 10)
		case "tobase64":
			out = base64.StdEncoding.EncodeToString([]byte(s))
		case "upper":
			out = strings.ToUpper(s)
		case "lower":
			out = strings.ToLower(s)
		case "json":
			b, err := json.Marshal(s)
			if err != nil {
				return fail(err)
			}
			out = string(b)
		case "format":
			out = fmt.Sprintf(c.C, s)
		case "trim_prefix":
			out = strings.TrimPrefix(s, c.C)
		case "replace":
			out = strings.ReplaceAll(s, c.C, "-")
		default:
			return fail(fmt.Errorf("unknown bytes op %q", c.B))
		}
		return ok(hex.EncodeToString([]byte(out)))
	case "to_json":
		b, err := json.Marshal(c.V)
		if err != nil {
			return fail(err)
		}
		return ok(string(b))
	case "upper":
		return ok(strings.ToUpper(c.A))
	case "lower":
		return ok(strings.ToLower(c.A))
	case "trim_prefix":
		return ok(strings.TrimPrefix(c.A, c.B))
	case "trim_suffix":
		return ok(strings.TrimSuffix(c.A, c.B))
	case "replace":
		return ok(strings.ReplaceAll(c.A, c.B, c.C))
	case "write_round_trip":
		// A field-path write: json.Marshal, then Kubernetes' decoder, which
		// keeps a literal that parses as int64 an integer.
		bits, err := strconv.ParseUint(c.A, 16, 64)
		if err != nil {
			return fail(err)
		}
		b, err := json.Marshal(math.Float64frombits(bits))
		if err != nil {
			return fail(err)
		}
		if n, err := strconv.ParseInt(string(b), 10, 64); err == nil {
			return ok("int:" + strconv.FormatInt(n, 10))
		}
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil {
			return fail(err)
		}
		return ok("float:" + floatBits(f))
	case "kubernetes_number":
		// A number literal as Kubernetes' decoder (sigs.k8s.io/json, PreserveInts)
		// types it: int64 when the literal has no '.' and ParseInt takes it, else
		// float64. So `-0` is int64 0 and `-0.0`, `-0e0` are float64 -0.
		var v any
		if err := json.Unmarshal([]byte(c.A), &v); err != nil {
			return fail(err)
		}
		if !strings.Contains(c.A, ".") {
			if n, err := strconv.ParseInt(c.A, 10, 64); err == nil {
				return ok("int:" + strconv.FormatInt(n, 10))
			}
		}
		f, err := strconv.ParseFloat(c.A, 64)
		if err != nil {
			return fail(err)
		}
		return ok("float:" + floatBits(f))
	case "struct_number":
		// A number literal as a protobuf Struct holds it: a float64 from
		// ParseFloat (protojson), which is encoding/json's reading into any.
		var v any
		if err := json.Unmarshal([]byte(c.A), &v); err != nil {
			return fail(err)
		}
		f, isFloat := v.(float64)
		if !isFloat {
			return fail(fmt.Errorf("not a number: %v", v))
		}
		return ok("float:" + floatBits(f))
	case "json_object":
		o := map[string]any{}
		err := json.Unmarshal([]byte(c.A), &o)
		if err != nil {
			return fail(err)
		}
		return ok(o)
	case "json_array":
		var o []any
		err := json.Unmarshal([]byte(c.A), &o)
		if err != nil {
			return fail(err)
		}
		return ok(o)
	}
	return fail(fmt.Errorf("unknown op %q", c.Op))
}

func main() {
	var cases []testCase
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		fmt.Fprintln(os.Stderr, "cannot read cases:", err)
		os.Exit(2)
	}
	answers := make([]answer, len(cases))
	for i, c := range cases {
		answers[i] = run(c)
	}
	if err := json.NewEncoder(os.Stdout).Encode(answers); err != nil {
		fmt.Fprintln(os.Stderr, "cannot write answers:", err)
		os.Exit(2)
	}
}
