package command

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/serve"
)

func init() {
	register("serve", subcommand{
		summary: "run the sandbox an agent acts in: FHIR, HL7, X12, portal, SFTP and phone endpoints, one isolated run per rollout",
		usage: "assay serve --seed DIR --out DIR [--listen ADDR] [--port N] [--sftp-port N] [--public-url URL]\n" +
			"            [--token T] [--run ID] [--criteria FILE] [--max-runs N] [--max-memory BYTES] [--ttl DURATION]\n" +
			"            [--clock RFC3339] [--persona-url URL --persona-model M] [--persona-cache FILE]",
		run: runServe,
	})
}

func runServe(ctx context.Context, c *cli, args []string) int {
	var (
		seed, out, listen, publicURL, token, runID, criteria, ttl, clock string
		personaURL, personaModel, personaCache                           string
		port, sftpPort, maxRuns                                          int
		maxMemory                                                        int64
	)
	fs := newFlags("serve", c)
	fs.StringVar(&seed, "seed", "", "the seed `DIR`: fhir/, hl7/inbox/, sftp/, portal/, payer/, voice/, read once at start (required)")
	fs.StringVar(&out, "out", "", "the `DIR` snapshots go to: run R's is DIR/R/sandbox/ (required; created if missing)")
	fs.StringVar(&listen, "listen", "127.0.0.1", "the `ADDR`ess to listen on")
	fs.IntVar(&port, "port", 0, "the HTTP port (0: any free port)")
	fs.IntVar(&sftpPort, "sftp-port", 0, "the SFTP (SSH) port (0: any free port)")
	fs.StringVar(&publicURL, "public-url", "", "the base `URL` written into endpoints and links (default http://LISTEN:PORT)")
	fs.StringVar(&token, "token", "", "the operator token `T` (default $ASSAY_SERVE_TOKEN, else a random one)")
	fs.StringVar(&runID, "run", "", "create a run with this `ID` at start")
	fs.StringVar(&criteria, "criteria", "", "criteria `FILE` to score each run on complete (and copy to OUT/ID/criteria.json)")
	fs.IntVar(&maxRuns, "max-runs", serve.DefaultMaxRuns, "the most active runs at once")
	fs.Int64Var(&maxMemory, "max-memory", serve.DefaultMaxMemory, "the most `BYTES` all runs hold together")
	fs.StringVar(&ttl, "ttl", serve.DefaultTTL.String(), "complete a run idle this long (a `DURATION` such as 30m)")
	fs.StringVar(&clock, "clock", "", "start every run's clock at this `RFC3339` time (default the real time)")
	fs.StringVar(&personaURL, "persona-url", "", "the Chat Completions server (base `URL`) of the phone line's LLM personas; key from $ASSAY_PERSONA_API_KEY")
	fs.StringVar(&personaModel, "persona-model", "", "the model `M` that the phone line's LLM personas ask")
	fs.StringVar(&personaCache, "persona-cache", "", "a `FILE` of recorded persona answers: replayed for the same conversation, new ones added")
	rest, ok := parseFlags(fs, c, args)
	if !ok {
		return exitUsage
	}
	switch {
	case len(rest) > 0:
		return c.badInput("serve: unexpected arguments %s", quoteList(rest))
	case seed == "":
		return c.badInput("serve: --seed DIR is required")
	case out == "":
		return c.badInput("serve: --out DIR is required")
	case port < 0 || port > 65535 || sftpPort < 0 || sftpPort > 65535:
		return c.badInput("serve: ports are numbers from 0 to 65535")
	case maxRuns < 1:
		return c.badInput("serve: --max-runs must be at least 1")
	case maxMemory < 1:
		return c.badInput("serve: --max-memory must be a positive number of bytes")
	case personaURL != "" && personaModel == "":
		return c.badInput("serve: --persona-url needs --persona-model")
	}
	opts := serve.Options{
		Out: out, Listen: listen, Port: port, SFTPPort: sftpPort, PublicURL: publicURL,
		Token: token, MaxRuns: maxRuns, MaxMemory: maxMemory, Log: c.stderr,
		PersonaURL: personaURL, PersonaModel: personaModel, PersonaCache: personaCache,
		PersonaAPIKey: c.getenv("ASSAY_PERSONA_API_KEY"),
	}
	if opts.Token == "" {
		opts.Token = c.getenv("ASSAY_SERVE_TOKEN")
	}
	d, err := time.ParseDuration(ttl)
	if err != nil || d <= 0 {
		return c.badInput("serve: --ttl %q: a positive duration such as 30m or 2h", ttl)
	}
	opts.TTL = d
	if clock != "" {
		t, err := time.Parse(time.RFC3339Nano, clock)
		if err != nil {
			return c.badInput("serve: --clock %q: an RFC 3339 time such as 2026-03-01T09:00:00Z", clock)
		}
		opts.Clock = t
	}
	if criteria != "" {
		data, err := readInputFile(criteria, check.DefaultMaxFileSize)
		if err == nil {
			_, err = assert.ParseCriteria(data)
		}
		if err != nil {
			return c.badInput("serve: --criteria %s: %v", criteria, err)
		}
		opts.Criteria = data
	}
	if ip := net.ParseIP(listen); listen != "localhost" && (ip == nil || !ip.IsLoopback()) {
		c.eprintf("serve: warning: listening on %s, not a loopback address: anyone who can reach it and holds a token can act in the sandbox", listen)
		if publicURL == "" {
			return c.badInput("serve: --listen %s needs --public-url: the URL agents reach the sandbox at", listen)
		}
	}
	if fi, err := os.Stat(seed); err != nil || !fi.IsDir() {
		return c.badInput("serve: --seed %s: not a folder", seed)
	}
	srv, err := serve.New(check.DirFS(seed), opts)
	if err != nil {
		return c.badInput("serve: seed %s: %v", seed, err)
	}
	if err := srv.Start(); err != nil {
		return c.badInput("serve: %v", err)
	}
	// Signals are caught before the ready line: a client that stops the
	// server as soon as it reads the line must not kill it mid-start.
	stop, cancel := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer cancel()
	runs := []any{}
	if runID != "" {
		r, err := srv.NewRun(ctx, serve.RunOptions{ID: runID})
		if err != nil {
			srv.Close()
			return c.badInput("serve: --run %s: %v", runID, err)
		}
		runs = append(runs, r.Object())
	}
	ready, _ := json.Marshal(map[string]any{"url": srv.URL(), "sftp": srv.SFTPAddr(), "token": srv.Token(), "runs": runs})
	fmt.Fprintf(c.stdout, "%s\n", ready)
	if f, ok := c.stdout.(*os.File); ok {
		f.Sync()
	}
	c.eprintf("serve: listening on %s (SFTP %s); Ctrl-C completes every active run and exits", srv.URL(), orNone(srv.SFTPAddr()))

	<-stop.Done()
	c.eprintf("serve: stopping: completing every active run")
	if err := srv.Shutdown(context.Background()); err != nil {
		// A snapshot that could not be written (a full disk, say): the
		// run's evidence is lost, which is not a clean exit.
		c.eprintf("serve: %v", err)
		return exitFail
	}
	return exitOK
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
