package spec_test

import (
	"testing"

	"github.com/assaykit/assay/spec"
)

func BenchmarkSpec(b *testing.B) {
	specs := map[string]spec.Builder{
		"exit_code": spec.ExitCode{Code: 0},
		"hl7-structural": spec.HL7Structural{
			CorrelateBy: map[string]spec.Value{"message_type": spec.String("ORM"), "trigger_event": spec.String("O01")},
			Fields: []spec.Field{
				{Path: "PID.3.1", Expected: spec.String("W123456789")},
				{Path: "OBR.4.1", Expected: spec.Number(72148)},
				{Path: "PID.8"},
				{Path: "ORC.1", Expected: spec.String("NW")},
			},
		},
	}
	for name, s := range specs {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(s.Spec())))
			b.ReportAllocs()
			for b.Loop() {
				_ = s.Spec()
			}
		})
	}
}
