package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"github.com/assaykit/assay/serve/internal/sim"
)

// DefaultMaxEvents is how many events a run keeps; later ones are counted
// in run.json's events_dropped (13.11).
const DefaultMaxEvents = 100_000

// eventLog is a run's events, each kept as its JSON line.
type eventLog struct {
	max int

	mu      sync.Mutex
	lines   []json.RawMessage
	seq     int64
	dropped int64
}

// add stamps e with the next seq and time, and keeps it unless the log is
// full. The seq is taken even for a dropped event, so seq never has a gap
// among the events kept before the cap and the count of what was dropped
// is exact.
func (l *eventLog) add(now string, e sim.Event) {
	fields, err := json.Marshal(e.Fields)
	if err != nil || (e.Fields != nil && (len(fields) < 2 || fields[0] != '{')) {
		fields = []byte(fmt.Sprintf(`{"error":%q}`, "the event's fields are not a JSON object"))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	if len(l.lines) >= l.max {
		l.dropped++
		return
	}
	var b bytes.Buffer
	b.WriteString(`{"seq":`)
	b.WriteString(strconv.FormatInt(l.seq, 10))
	b.WriteString(`,"time":`)
	b.WriteString(strconv.Quote(now))
	b.WriteString(`,"sim":`)
	writeString(&b, e.Sim)
	b.WriteString(`,"type":`)
	writeString(&b, e.Type)
	if inner := bytes.TrimSpace(fields); e.Fields != nil && len(inner) > 2 {
		b.WriteByte(',')
		b.Write(inner[1 : len(inner)-1])
	}
	b.WriteByte('}')
	l.lines = append(l.lines, b.Bytes())
}

func writeString(b *bytes.Buffer, s string) {
	data, _ := json.Marshal(s)
	b.Write(data)
}

// page returns the events with seq > after, at most limit, and the seq of
// the last one returned (0 when none).
func (l *eventLog) page(after int64, limit int) ([]json.RawMessage, int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	// Kept events hold seq 1..len(lines): seq n is lines[n-1].
	start := max(after, 0)
	if start >= int64(len(l.lines)) {
		return nil, 0
	}
	end := min(start+int64(limit), int64(len(l.lines)))
	out := make([]json.RawMessage, end-start)
	copy(out, l.lines[start:end])
	return out, end
}

// jsonl returns every kept event, one per line, and the count dropped.
func (l *eventLog) jsonl() ([]byte, int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b bytes.Buffer
	for _, line := range l.lines {
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes(), l.dropped
}
