package chatagent_test

import (
	"context"
	"fmt"

	"github.com/assaykit/assay/clitask"
	"github.com/assaykit/assay/clitask/chatagent"
	"github.com/assaykit/assay/internal/chat/chattest"
)

// A suite run with a model: here a fake server's "solver", which runs the
// commands the task writes between backticks.
func Example() {
	srv := chattest.NewServer() // a local model server: vLLM, llama.cpp, Ollama, ...
	defer srv.Close()
	suite, err := clitask.LoadSuite("testdata/cli-bench.yaml")
	if err != nil {
		panic(err)
	}
	agent, err := chatagent.New(chatagent.Config{BaseURL: srv.URL})
	if err != nil {
		panic(err)
	}
	runner := &clitask.Runner{Agent: agent, Models: []string{"local/solver"}}
	report, err := runner.Run(context.Background(), suite, "hello")
	if err != nil {
		panic(err)
	}
	for _, run := range report.Runs {
		fmt.Printf("%s %s %s: passed %v in %d turns\n", run.TaskID, run.Model, run.HelpMode, run.Passed, run.Usage.Turns)
		for _, c := range run.Trace.Commands {
			fmt.Printf("  $ %s (exit %d)\n", c.Command, c.ExitCode)
		}
	}
	fmt.Printf("pass rate %.0f%%\n", report.PassRates["local/solver"].Rate)
	// Output:
	// hello local/solver injected: passed true in 3 turns
	//   $ echo hello > out.txt (exit 0)
	//   $ cat out.txt (exit 0)
	// pass rate 100%
}
