package sandbox

import (
	"context"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/voice"
)

func init() { register("voice", loadVoice) }

// loadVoice attaches voice/transcript.json or voice/transcript.txt, and,
// when a judge is configured (Options.JudgeURL, else ASSAY_JUDGE_URL), an
// LLM-assisted matcher for the voice checks; without one they match
// deterministically. A judge configured without a model, or with a URL
// that is not http(s), makes the voice checks report status error rather
// than quietly judge without it.
func loadVoice(f folder, env *assert.Env, opts Options) {
	voice.Attach(env, voice.FolderSource(f.fsys, opts.MaxFileSize))
	cfg := voice.LLMConfig{URL: opts.JudgeURL, Model: opts.JudgeModel, APIKey: opts.JudgeAPIKey}.FromEnv()
	if cfg.URL == "" {
		return
	}
	m, err := voice.NewLLMMatcher(cfg)
	if err != nil {
		voice.AttachMatcher(env, failingMatcher{err})
		return
	}
	voice.AttachMatcher(env, m)
}

// failingMatcher reports a judge that cannot be used.
type failingMatcher struct{ err error }

func (f failingMatcher) Match(context.Context, *voice.Transcript, voice.Speaker, []string) ([]voice.Match, error) {
	return nil, f.err
}
