// Package browsertest starts a real headless Chromium for tests, driven
// through github.com/chromedp/chromedp, with the launch flags that work on
// assay's machines and CI (no sandbox, no GPU, no background networking, a
// fresh profile), and collects the page's console errors and uncaught
// exceptions. A machine without Chromium skips the test with a message.
package browsertest

import (
	"context"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Browser is a started Chromium tab.
type Browser struct {
	// Ctx drives the tab (chromedp.Run, chromedp.Do).
	Ctx     context.Context
	mu      sync.Mutex
	console []chromedp.ConsoleMessage
}

// Start launches Chromium for t (window width by height), or skips t when
// none is installed. The browser is closed when t ends.
func Start(t testing.TB, width, height int) *Browser {
	t.Helper()
	exe := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			exe = p
			break
		}
	}
	if exe == "" {
		t.Skip("no chromium on PATH (Debian: apt-get install chromium): not tested in a browser")
	}
	parent, stop := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(stop)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(parent,
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
	)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	b := &Browser{Ctx: ctx}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.console = append(b.console, m)
			b.mu.Unlock()
		}
	}()
	return b
}

// Problems returns the console errors and uncaught exceptions logged since
// the last call, after giving late messages a moment to arrive.
func (b *Browser) Problems() []chromedp.ConsoleMessage {
	time.Sleep(100 * time.Millisecond)
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []chromedp.ConsoleMessage
	for _, m := range b.console {
		if m.Type == chromedp.ConsoleError || m.IsException() {
			out = append(out, m)
		}
	}
	b.console = nil
	return out
}
