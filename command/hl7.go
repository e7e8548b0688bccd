package command

import "github.com/assaykit/assay/hl7"

func init() {
	registerPathFormat(pathFormat[*hl7.Batch, hl7.Path]{
		name: "hl7",
		usage: "The file is read as one sequence of segments, so MSH[2].10 is the second message's control id.\n" +
			"paths: SEG[OCC].FIELD[REP].COMPONENT.SUBCOMPONENT, e.g. MSH.9.1, PID.3[2].1, OBX[*].5, PID-5-1 (see hl7/SYNTAX.md)",
		parsePath: hl7.ParsePath,
		selectAll: func(data []byte, paths []hl7.Path) ([][]string, error) { return hl7.Select(data, paths...) },
	}, "read values from an HL7 v2 file: hl7 get FILE PATH...")
}
