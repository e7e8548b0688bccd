package command

import "github.com/assaykit/assay/x12"

func init() {
	registerPathFormat(pathFormat[*x12.Interchange, x12.Path]{
		name: "x12",
		usage: "The file is read as one interchange, all its groups and transaction sets in order; envelope findings\n" +
			"are printed to stderr as warnings.\n" +
			"paths: [LOOP(OCC)/...]SEG[QUAL](OCC)NN[REP]-C, e.g. BHT03, NM1[IL]09, 2110C/EB01, HI01-2 (see x12/SYNTAX.md)",
		parsePath: x12.ParsePath,
		parse:     func(text string) (*x12.Interchange, error) { return x12.ParseString(text) },
		values:    func(x *x12.Interchange, p x12.Path) []string { return p.Values(x) },
		warnings: func(x *x12.Interchange) []string {
			var out []string
			for _, f := range x.Findings() {
				out = append(out, f.String())
			}
			return out
		},
	}, "read values from an X12 file: x12 get FILE PATH...")
}
