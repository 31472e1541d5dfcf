package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// -html writes the counterexample's page, and a real browser draws it: the
// page's script draws one arrow per cross-thread happens-before edge, and
// the failing step is marked. The browser part needs Chromium
// (scripts/install-chromium.sh) and is skipped, saying so, without it.
func TestHTMLInBrowser(t *testing.T) {
	file := filepath.Join(t.TempDir(), "lost-update.html")
	if code, _, errs := cmd(t, "-model", "lost-update", "-strategy", "odpor", "-html", file); code != 1 {
		t.Fatalf("exit %d, want 1 (a violation): %s", code, errs)
	}
	page, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "step failing") || !strings.Contains(string(page), "check failure") {
		t.Fatalf("the page does not mark the failure:\n%s", page)
	}
	browser := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Skip("no Chromium installed (scripts/install-chromium.sh installs it): the page was written but not rendered")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", "file://"+file).Output()
	if err != nil {
		t.Fatalf("%s: %v", browser, err)
	}
	dom := string(out)
	m := regexp.MustCompile(`data-arrows="(\d+)"`).FindStringSubmatch(dom)
	lines := strings.Count(dom, `<line class="hb"`)
	// lost-update: T0 reads, T1 reads, T1 writes (after T0's read), T0
	// writes (after T1's write): two cross-thread edges.
	if m == nil || m[1] != "2" || lines != 2 {
		t.Errorf("the browser drew %d arrows (script says %v), want 2:\n%s", lines, m, dom)
	}
	if !strings.Contains(dom, "step failing") {
		t.Errorf("the rendered page does not mark the failing step")
	}
}

// -html takes one model and one strategy, as -trace does.
func TestHTMLNeedsOneModel(t *testing.T) {
	if code, _, errs := cmd(t, "-html", filepath.Join(t.TempDir(), "x.html")); code != 2 || !strings.Contains(errs, "need -model") {
		t.Errorf("exit %d: %s", code, errs)
	}
}
