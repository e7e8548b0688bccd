package hl7_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assaykit/assay/hl7"
)

// TestListenerWithIndependentSender runs simple-hl7's MLLP client (npm
// simple-hl7 3.3.0, pinned in testdata/mllpsender) against the listener: a
// sender written without this package's framing code, whose own parser
// reads the acknowledgments. It needs node and the fixture's node_modules
// (npm ci --prefix hl7/testdata/mllpsender); without them it is skipped.
func TestListenerWithIndependentSender(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed; skipping the independent MLLP sender")
	}
	fixture, _ := filepath.Abs(filepath.Join("testdata", "mllpsender"))
	if _, err := os.Stat(filepath.Join(fixture, "node_modules", "simple-hl7")); err != nil {
		t.Skip("simple-hl7 is not installed; run: npm ci --prefix hl7/testdata/mllpsender")
	}
	l := &hl7.Listener{}
	addr := serve(t, l)
	_, port, _ := strings.Cut(addr, ":")

	files := []string{
		"own/orm_o01_priorauth.hl7",
		"own/adt_a01_crlf.hl7",
		"corpus/hl7parser_rs_oru_r01_lab_z_segments.hl7",
		"corpus/fhirconv_siu_s12_01.hl7",
		"corpus/hl7dotnet_adt_a28_quoted_nulls_escape.hl7",
		"own/bom_adt_a04.hl7",
		"own/bad_segment_id.hl7",
		"own/header_only.hl7",
	}
	args := []string{filepath.Join(fixture, "send.js"), port}
	for _, f := range files {
		args = append(args, filepath.Join("testdata", f))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node send.js: %v\n%s", err, stderr.String())
	}
	type ack struct {
		File      string `json:"file"`
		Code      string `json:"code"`
		ControlID string `json:"control_id"`
	}
	var acks []ack
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var a ack
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("sender printed %q: %v", sc.Text(), err)
		}
		acks = append(acks, a)
	}
	want := []ack{
		{Code: "AA", ControlID: "PA-ORM-0001"},
		{Code: "AA", ControlID: "ADT-0001"},
		{Code: "AA", ControlID: "3216598"},
		{Code: "AA", ControlID: "MSG00012"},
		{Code: "AA", ControlID: "0000000111300053"},
		{Code: "AA", ControlID: "BOM-1"},
		{Code: "AE", ControlID: "X1"},
		{Code: "AR", ControlID: ""},
	}
	if len(acks) != len(want) {
		t.Fatalf("%d acknowledgments, want %d: %s", len(acks), len(want), out)
	}
	for i, w := range want {
		if acks[i].Code != w.Code || acks[i].ControlID != w.ControlID {
			t.Errorf("%s: ACK %s %q, want %s %q", files[i], acks[i].Code, acks[i].ControlID, w.Code, w.ControlID)
		}
	}
	// The listener kept the six good messages, as sent (line breaks
	// became CR on the way; a byte-order mark is not part of a message).
	msgs, _ := l.Messages(context.Background())
	if len(msgs) != 6 {
		t.Fatalf("captured %d messages", len(msgs))
	}
	for i, m := range msgs {
		data, err := os.ReadFile(filepath.Join("testdata", files[i]))
		if err != nil {
			t.Fatal(err)
		}
		sent := strings.NewReplacer("\r\n", "\r", "\n", "\r").Replace(strings.TrimPrefix(string(data), "\uFEFF"))
		if string(m.Bytes()) != sent {
			t.Errorf("%s: captured %q, sent %q", files[i], m.Bytes(), sent)
		}
	}
	if rj := mustRejects(t, l); len(rj) != 2 || rj[0].Code != "AE" || rj[0].ControlID != "X1" || rj[1].Code != "AR" || !errors.Is(rj[1].Err, hl7.ErrMissingField) {
		t.Errorf("rejects %v", rj)
	}
}
