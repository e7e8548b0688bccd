package hl7_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/hl7"
)

// benchCorpus is a mix of real-sized messages from the corpus: ADT with
// insurance, ORU lab results with Z segments, SIU scheduling, OML and OUL
// orders, a batch, and a CRLF ADT.
var benchFiles = []string{
	"corpus/hl7parser_rs_adt_a08_lf.hl7",
	"corpus/hl7parser_rs_oru_r01_lab_z_segments.hl7",
	"corpus/fhirconv_siu_s12_01.hl7",
	"corpus/fhirconv_siu_s12_02_multi_rgs.hl7",
	"corpus/hl7apy_oml_o33_multi_specimen.hl7",
	"corpus/medplum_oul_r22_subcomponents_repetitions.hl7",
	"corpus/pyhl7_adt_a01_in1_quoted_nulls.hl7",
	"corpus/pyhl7_file_two_batches.hl7",
	"corpus/hl7dotnet_oru_r01_nte_lines.hl7",
	"own/adt_a01_crlf.hl7",
	"own/orm_o01_priorauth.hl7",
}

// benchPaths are ten reads a check typically makes.
var benchPaths = []string{"MSH.9.1", "MSH.9.2", "MSH.10", "MSH.3.1", "PID.3[*].1", "PID.5.1", "PID.5.2", "PID.7", "OBX[*].5", "PV1.2"}

func loadBench(b *testing.B) (inputs [][]byte, total int, messages int) {
	for _, f := range benchFiles {
		data, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			b.Fatal(err)
		}
		batch, err := hl7.Parse(data)
		if err != nil {
			b.Fatal(err)
		}
		inputs = append(inputs, data)
		total += len(data)
		messages += batch.Len()
	}
	return inputs, total, messages
}

// BenchmarkParseAndRead parses every input of the mixed corpus and makes
// ten path reads on each message, appending each value's text to a reused
// buffer.
func BenchmarkParseAndRead(b *testing.B) {
	inputs, total, messages := loadBench(b)
	paths := make([]hl7.Path, len(benchPaths))
	for i, s := range benchPaths {
		paths[i] = hl7.MustParsePath(s)
	}
	var buf []byte
	var vals []hl7.Value
	b.SetBytes(int64(total))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, data := range inputs {
			batch, err := hl7.Parse(data)
			if err != nil {
				b.Fatal(err)
			}
			for i := range batch.Len() {
				m := batch.Message(i)
				for _, p := range paths {
					vals = m.GetAll(p, vals[:0])
					for _, v := range vals {
						buf = v.AppendText(buf[:0])
					}
				}
			}
		}
	}
	b.ReportMetric(float64(b.N*messages)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkParse parses the mixed corpus without reading.
func BenchmarkParse(b *testing.B) {
	inputs, total, _ := loadBench(b)
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for range b.N {
		for _, data := range inputs {
			if _, err := hl7.Parse(data); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkStructuralCheck runs one hl7-structural check over 1,000
// captured messages, the candidate at the end.
func BenchmarkStructuralCheck(b *testing.B) {
	data, err := os.ReadFile("testdata/own/orm_o01_priorauth.hl7")
	if err != nil {
		b.Fatal(err)
	}
	var msgs []*hl7.Message
	for i := range 1000 {
		m, err := hl7.ParseMessage(data)
		if err != nil {
			b.Fatal(err)
		}
		if i == 999 {
			m, _ = hl7.ParseMessage([]byte(string(data[:len("MSH|^~\\&|ASSAYEHR|ASSAYHOSP|RIS|RADIOLOGY|20250114093000||")]) + "ORM^O02^ORM_O01|LAST|P|2.5.1\rPID|1||X||DOE^JANE\r"))
		}
		msgs = append(msgs, m)
	}
	env := assert.NewEnv()
	hl7.Attach(env, hl7.MemorySource(msgs...))
	r := assert.NewRegistry()
	hl7.Register(r)
	a, err := r.Decode([]byte(`{"assert":"hl7-structural","correlate_by":{"trigger_event":"O02"},"fields":[{"path":"PID.5.1","expected":"DOE"},{"path":"PID.5.2","expected":"JANE"}]}`))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for range b.N {
		if res := a.Check(context.Background(), env); res.Status != assert.StatusPassed {
			b.Fatal(res.Details)
		}
	}
}

// BenchmarkListener sends small messages over loopback from 8 connections,
// each waiting for its ACK before sending the next, as MLLP senders do.
func BenchmarkListener(b *testing.B) {
	l := &hl7.Listener{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Serve(ctx, ln) }()
	defer func() {
		cancel()
		<-done
	}()
	const conns = 8
	frames := make([][]byte, conns)
	for i := range frames {
		frames[i] = []byte(fmt.Sprintf("\x0bMSH|^~\\&|APP|FAC|RIS|RFAC|20250101120000||ADT^A08^ADT_A01|BENCH-%d|P|2.5.1\rEVN|A08|20250101120000\rPID|1||%d^^^H^MR||DOE^JANE||19800412|F\rPV1|1|O\r\x1c\r", i, i))
	}
	b.SetBytes(int64(len(frames[0])))
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for i := range conns {
		n := b.N / conns
		if i < b.N%conns {
			n++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				b.Error(err)
				return
			}
			defer c.Close()
			r := bufio.NewReader(c)
			for range n {
				if _, err := c.Write(frames[i]); err != nil {
					b.Error(err)
					return
				}
				if _, err := r.ReadSlice(0x1c); err != nil {
					b.Error(err)
					return
				}
				if _, err := r.ReadByte(); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "msgs/s")
	if msgs, _ := l.Messages(ctx); len(msgs) != b.N {
		b.Fatalf("captured %d of %d", len(msgs), b.N)
	}
}
