// Command customkind is a team's own assay: every built-in kind, plus
// "ledger-balance", a kind of its own whose evidence is a snapshot folder of
// its own (ledger/). It keeps everything the assay command does (eval,
// validate, schema, check, the formats) through command.Main:
//
//	go run ./examples/customkind eval --criteria criteria.json --sandbox sandbox
//	go run ./examples/customkind schema ledger-balance
//
// With no arguments it evaluates its bundled example.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/clitask"
	"github.com/assaykit/assay/command"
	"github.com/assaykit/assay/sandbox"
)

// The kind: an account of the ledger holds the expected balance.
const ledgerSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object", "required": ["assert", "account", "balance"], "additionalProperties": false,
  "properties": {
    "assert": {"const": "ledger-balance"},
    "account": {"type": "string", "minLength": 1},
    "balance": {"type": "number"}
  }
}`

type ledgerBalance struct {
	Account string  `json:"account"`
	Balance float64 `json:"balance"`
}

// Ledger is the kind's evidence: balances by account.
type Ledger interface {
	Balances(ctx context.Context) (map[string]float64, error)
}

func (l *ledgerBalance) Check(ctx context.Context, env *assert.Env) assert.Result {
	src, err := assert.Lookup[Ledger](env)
	if err != nil {
		return assert.Errored(err)
	}
	balances, err := src.Balances(ctx)
	if err != nil {
		return assert.Errored(err)
	}
	got, ok := balances[l.Account]
	switch {
	case !ok:
		return assert.Fail(0, fmt.Sprintf("The ledger has no account %q.", l.Account), nil)
	case got != l.Balance:
		return assert.Fail(0, fmt.Sprintf("Account %q holds %v, expected %v.", l.Account, got, l.Balance), map[string]any{"actual": got})
	}
	return assert.Pass(fmt.Sprintf("Account %q holds %v.", l.Account, got), map[string]any{"actual": got})
}

// ledgerFile reads ledger/balances.json of a snapshot, bounded like every
// evidence read.
type ledgerFile struct{ fsys fs.FS }

func (l ledgerFile) Balances(context.Context) (map[string]float64, error) {
	data, err := check.ReadFile(l.fsys, "balances.json", 0)
	if err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	var out map[string]float64
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("ledger/balances.json: %w", err)
	}
	return out, nil
}

func init() {
	assert.RegisterType[ledgerBalance](assert.DefaultRegistry(), "ledger-balance", []byte(ledgerSchema))
	sandbox.RegisterFolder("ledger", func(fsys fs.FS, _ string, env *assert.Env, _ sandbox.Options) {
		assert.Attach[Ledger](env, ledgerFile{fsys})
	})
}

func main() {
	_ = clitask.BecomeSubreaper()
	args := os.Args[1:]
	if len(args) == 0 {
		_, file, _, _ := runtime.Caller(0)
		dir := filepath.Dir(file)
		args = []string{"eval", "--criteria", filepath.Join(dir, "criteria.json"), "--sandbox", filepath.Join(dir, "sandbox")}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := command.Main(ctx, args, command.Config{})
	stop()
	os.Exit(code)
}
