package sftp_test

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/sftp"
	"github.com/assaykit/assay/sftp/sftptest"
)

// latencyConn delays everything written through it by delay, without
// blocking the writer: a delay line that adds delay to every round trip
// that starts on this side.
type latencyConn struct {
	net.Conn
	delay time.Duration
	ch    chan chunk
	mu    sync.Mutex
	err   error
	once  sync.Once
}

type chunk struct {
	data []byte
	at   time.Time
}

func withLatency(c net.Conn, delay time.Duration) net.Conn {
	l := &latencyConn{Conn: c, delay: delay, ch: make(chan chunk, 4096)}
	go func() {
		for ch := range l.ch {
			time.Sleep(time.Until(ch.at))
			if _, err := l.Conn.Write(ch.data); err != nil {
				l.mu.Lock()
				l.err = err
				l.mu.Unlock()
			}
		}
	}()
	return l
}

func (l *latencyConn) Write(p []byte) (int, error) {
	l.mu.Lock()
	err := l.err
	l.mu.Unlock()
	if err != nil {
		return 0, err
	}
	l.ch <- chunk{append([]byte(nil), p...), time.Now().Add(l.delay)}
	return len(p), nil
}

func (l *latencyConn) Close() error {
	l.once.Do(func() { close(l.ch) })
	return l.Conn.Close()
}

// benchTree is 10,000 small JSON files: out/batchNN/claimMMM.json.
func benchTree() map[string][]byte {
	files := make(map[string][]byte, 10000)
	for b := range 100 {
		for c := range 100 {
			files[fmt.Sprintf("out/batch%02d/claim%03d.json", b, c)] = fmt.Appendf(nil, `{"claim.id": "C-%02d-%03d", "status": "paid", "lines": [{"cpt": "99213"}]}`, b, c)
		}
	}
	return files
}

// benchCriteria are 100 checks: 40 paths, 40 narrow patterns that read
// ten files each, 20 "**" patterns over the whole tree.
func benchCriteria(b *testing.B) *assert.Plan {
	var criteria []assert.Criterion
	for i := range 40 {
		criteria = append(criteria, assert.Criterion{Assertion: assert.Spec(fmt.Sprintf(
			`{"assert": "sftp-file-present", "path": "/out/batch%02d/claim%03d.json", "parse_json": true, "fields": [{"key": "claim.id", "expected": "C-%02d-%03d"}]}`, i, i, i, i))})
	}
	for i := range 40 {
		criteria = append(criteria, assert.Criterion{Assertion: assert.Spec(fmt.Sprintf(
			`{"assert": "sftp-file-present", "path_pattern": "out/batch%02d/claim00?.json", "parse_json": true, "fields": [{"path": "lines.0.cpt", "expected": "99213"}, {"key": "claim.id", "expected": "C-%02d-005"}]}`, 40+i, 40+i))})
	}
	for i := range 20 {
		criteria = append(criteria, assert.Criterion{Assertion: assert.Spec(fmt.Sprintf(
			`{"assert": "sftp-file-present", "path_pattern": "**/claim%03d.json"}`, i))})
	}
	plan, err := assert.Compile(criteria)
	if err != nil {
		b.Fatal(err)
	}
	return plan
}

// BenchmarkEvaluate100Checks10kFiles evaluates 100 checks against a tree of
// 10,000 files over loopback SFTP (the in-process server), one connection,
// the tree listed once per evaluation; then with 20 ms added to every
// round trip.
func BenchmarkEvaluate100Checks10kFiles(b *testing.B) {
	for _, latency := range []time.Duration{0, 20 * time.Millisecond} {
		b.Run(fmt.Sprintf("latency=%s", latency), func(b *testing.B) {
			files := benchTree()
			size := 0
			for _, data := range files {
				size += len(data)
			}
			srv := memServer(b, sftptest.Options{Files: files})
			cfg := srv.Config(writeFile(b, string(srv.KnownHosts())))
			if latency > 0 {
				cfg.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
					c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
					if err != nil {
						return nil, err
					}
					return withLatency(c, latency), nil
				}
			}
			ep, err := sftp.Dial(context.Background(), cfg)
			if err != nil {
				b.Fatal(err)
			}
			defer ep.Close()
			env := assert.NewEnv()
			sftp.Attach(env, ep)
			plan := benchCriteria(b)
			before := srv.Stats()
			b.SetBytes(int64(size))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				ep.Refresh() // a new evaluation reads the tree anew
				res, err := plan.Evaluate(context.Background(), env)
				if err != nil {
					b.Fatal(err)
				}
				if res.Verdict != assert.VerdictPass {
					b.Fatalf("verdict %s: %+v", res.Verdict, res.Criteria[0])
				}
			}
			after := srv.Stats()
			lists := float64(after.Lists-before.Lists) / float64(b.N)
			b.ReportMetric(lists, "listings/op")
			b.ReportMetric(float64(after.Reads-before.Reads)/float64(b.N), "reads/op")
			// 1 root + out + 100 batches: each folder listed once.
			if lists != 102 {
				b.Errorf("%v folder listings per evaluation, want 102 (each folder once)", lists)
			}
		})
	}
}

// BenchmarkPatternMatch100k matches one pattern against 100,000 paths per
// op; the design asks for under 50 ms.
func BenchmarkPatternMatch100k(b *testing.B) {
	paths := make([]string, 0, 100000)
	size := 0
	for i := range 100000 {
		p := fmt.Sprintf("out/batch%03d/sub%d/claim%05d.json", i/1000, i%7, i)
		if i%10 == 0 {
			p += ".part"
		}
		paths = append(paths, p)
		size += len(p)
	}
	for _, pattern := range []string{"out/**/claim*.json", "out/batch0?1/*/claim*5.json", "**/*.part"} {
		b.Run(pattern, func(b *testing.B) {
			p, err := sftp.CompilePattern(pattern)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(size))
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				n = 0
				for _, path := range paths {
					if p.Match(path) {
						n++
					}
				}
			}
			b.ReportMetric(float64(n), "matches")
		})
	}
}

// BenchmarkCheckMemory is one pattern check with fields over a memory tree
// of 10,000 files (listed once, then shared).
func BenchmarkCheckMemory(b *testing.B) {
	files := benchTree()
	env := assert.NewEnv()
	sftp.Attach(env, sftp.MemorySource(files))
	a, err := assert.Decode([]byte(`{"assert": "sftp-file-present", "path_pattern": "out/**/claim05?.json", "parse_json": true, "fields": [{"key": "claim.id", "expected": "C-99-059"}]}`))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(files)))
	b.ReportAllocs()
	for b.Loop() {
		if r := assert.Run(context.Background(), a, env); r.Status != assert.StatusPassed {
			b.Fatal(r.Details)
		}
	}
}
