// Package chatagent is the model agent of assay run: a clitask.Agent that
// works on each cli-bench task with a model behind any Chat Completions API
// with tool calling (hosted gateways, vLLM, llama.cpp's server, Ollama),
// through one tool, run_command.
//
//	agent, err := chatagent.New(chatagent.Config{BaseURL: "http://127.0.0.1:8000/v1"})
//	...
//	runner := &clitask.Runner{Agent: agent, Models: []string{"qwen2.5-coder"}}
//	report, err := runner.Run(ctx, suite)
//
// # A run
//
// The system prompt names the CLI and the working directory and says to use
// run_command; then, by the attempt's help mode, the output of `CLI --help`
// (injected: Config.Help, see Help), or where the help is (discoverable:
// `CLI --help` and `CLI COMMAND --help`), or neither (none); then the
// suite's system_prompt. The task's intent is the user message. Each model
// call sends the whole conversation and the tool; every tool call of the
// answer is run, in order, through the attempt's recording shell (the
// suite's env, timeouts and output caps apply) and answered with
// {"exit_code", "stdout", "stderr"} as JSON text, each stream redacted as
// the suite asks (and the Runner's secrets hidden), then cut at 16 KiB
// (MaxToolOutput), a cut stream ending "[... N bytes cut]". A run ends when
// the model answers without a tool call, after max_turns model calls (the
// task's, else Config.MaxTurns, else 10; the tool calls of the last one are
// run too), or when the run's context ends.
//
// A tool call the agent cannot run is answered, for the model to read, with
// {"error": MESSAGE}, and the run goes on: a tool other than run_command,
// arguments that are not a JSON object, a missing or empty "command", a
// command that could not start. A model call that fails (after the shared
// retry policy: 408, 429 with Retry-After, 5xx and lost connections are
// retried) or answers no choices ends the attempt with an error, and the
// run counts as failed. A run that reaches its timeout (the Runner's
// RunTimeout, context cause clitask.ErrRunTimeout) ends without an error and
// is judged on what it did, a model call or command in flight included.
//
// Usage: the agent counts in Attempt.Usage one turn per model call that
// answered (a call retried counts once) and the prompt and completion
// tokens of the answers' usage (0 when a server sends none).
// Config.OnConversation receives each attempt's Conversation: the messages
// as sent and answered (redacted as the trace is), the usage and wall time,
// and how it stopped.
//
// # Keys and servers
//
// The API key goes only to the base URL's origin (scheme, host and port); a
// redirect elsewhere is followed without it, and it is removed from every
// error, server-sent bodies included. With no key, requests go without
// Authorization (local servers take none). Reached says whether any call got
// an HTTP response; Unreachable says why none did. Once a call has failed to
// reach the server (after its retries) while no call has reached it, the
// agent's later calls fail at once with that error rather than each waiting
// out the retries.
//
// # Decisions
//
// Where section 14 of the design is silent:
//
//   - The tool result and every error the model reads are one line of JSON
//     without HTML escaping, so "<" and "&" read as written. The key order
//     is exit_code, stdout, stderr.
//   - A tool call without an id gets "call_TURN_N", written into the
//     assistant message sent back too, so that every tool message answers
//     an id; a missing type is "function". Arguments sent as a JSON object
//     rather than a string (some servers) are read as their text.
//   - An answer without choices is an error (the model produced nothing to
//     act on); an answer with content and tool calls runs the calls.
//   - Each attempt of a model call is bounded by Config.CallTimeout (5
//     minutes: local models on a CPU are slow), all of them by the run's
//     timeout.
//   - The help of help mode injected runs in a fresh temporary folder
//     prepared as a run's is (scaffold, the suite's setup), since a suite
//     may provide its CLI there; it is cut at 16 KiB like a stream, and a
//     help that printed nothing says so in the prompt.
//   - FindCLI looks for the suite's cli (its first word) on the PATH the
//     runs get before any model is asked, "{{workdir}}" in PATH standing
//     for the scaffold; a suite with setup commands, which may install it,
//     gets a prepared working directory to look in when that fails.
package chatagent
