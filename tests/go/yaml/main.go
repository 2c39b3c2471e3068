// Prints documents the way `crossplane render` prints each of its documents: "---", then
// sigs.k8s.io/yaml's JSONToYAML of the object. The argument is a file of JSON documents, one
// per line (a .json file), or a YAML stream whose documents follow "---" lines.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"

	"sigs.k8s.io/yaml"
)

func main() {
	in, err := os.ReadFile(os.Args[1])
	if err != nil {
		fail(err)
	}
	var docs [][]byte
	if strings.HasSuffix(os.Args[1], ".json") {
		s := bufio.NewScanner(bytes.NewReader(in))
		s.Buffer(nil, 1<<24)
		for s.Scan() {
			docs = append(docs, append([]byte(nil), s.Bytes()...))
		}
	} else {
		for _, d := range bytes.Split(in, []byte("---\n")) {
			if len(bytes.TrimSpace(d)) == 0 {
				continue
			}
			j, err := yaml.YAMLToJSON(d)
			if err != nil {
				fail(err)
			}
			docs = append(docs, j)
		}
	}
	for _, j := range docs {
		y, err := yaml.JSONToYAML(j)
		if err != nil {
			fail(err)
		}
		fmt.Println("---")
		os.Stdout.Write(y)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
