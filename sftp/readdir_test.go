package sftp

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"os"
	"testing"
)

// A NAME answer as OpenSSH writes it reads back as its entries, "." and
// ".." left out; one cut short or claiming more entries than it holds is
// an error, never a panic or a slice sized from the claim.
func TestParseNames(t *testing.T) {
	data, err := os.ReadFile("testdata/listing/name.bin")
	if err != nil {
		t.Fatal(err)
	}
	infos, received, err := parseNames(data)
	if err != nil || received != 5 || len(infos) != 3 {
		t.Fatalf("%d of %d entries, %v", len(infos), received, err)
	}
	for i, want := range []struct {
		name string
		mode fs.FileMode
	}{{"a.json", 0o644}, {"dir", fs.ModeDir | 0o755}, {"link", fs.ModeSymlink | 0o777}} {
		if infos[i].Name() != want.name || infos[i].Mode() != want.mode || infos[i].Size() != 3 {
			t.Errorf("entry %d: %s %v %d", i, infos[i].Name(), infos[i].Mode(), infos[i].Size())
		}
	}
	for _, bad := range [][]byte{nil, data[:len(data)-1], binary.BigEndian.AppendUint32(nil, 1<<31)} {
		if _, _, err := parseNames(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if _, _, err := readPacket(bytes.NewReader(binary.BigEndian.AppendUint32(nil, maxPacket+1))); err == nil {
		t.Error("a packet over the cap was read")
	}
}

// FuzzParseNames feeds arbitrary packets to the listing's parsers.
func FuzzParseNames(f *testing.F) {
	data, err := os.ReadFile("testdata/listing/name.bin")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		infos, received, err := parseNames(data)
		if err == nil && len(infos) > received {
			t.Fatalf("%d entries of %d received", len(infos), received)
		}
		statusError(packet{typ: fxpStatus, data: data}, "/d")
		readPacket(bytes.NewReader(data))
	})
}
