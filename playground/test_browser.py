#!/usr/bin/env python3
"""The playground in a real browser: headless Chromium loads the page built
by build.sh, and this script types a program into it, reads the diagnostics,
fixes the program, runs it forwards and through its gradient, and reads the
inverse and the generated Rust, as a person would. It also measures the time
from navigation to the first diagnostics (the target is under 1 s).

Chromium is driven over the DevTools protocol on a pipe
(--remote-debugging-pipe: JSON messages separated by NUL bytes on file
descriptors 3 and 4), so nothing beyond Python's standard library and
Debian's chromium package is needed.

    python3 playground/test_browser.py [--site target/playground] [--screenshot docs/playground.png]
"""

import argparse
import base64
import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Failure(Exception):
    pass


class Browser:
    """Headless Chromium with one page, over the DevTools pipe."""

    def __init__(self, chromium, profile):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        os.set_inheritable(to_chrome_r, True)
        os.set_inheritable(from_chrome_w, True)
        args = [
            chromium,
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--remote-debugging-pipe",
            f"--user-data-dir={profile}",
            "--window-size=1400,900",
            "about:blank",
        ]

        def fds():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        self.process = subprocess.Popen(
            args,
            # The pipe's ends become descriptors 3 and 4 in Chromium, after
            # subprocess has closed what it would not pass on.
            preexec_fn=fds,
            close_fds=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buffer = b""
        self.next_id = 0
        self.session = None

    def send(self, method, params=None, session=True, timeout=30):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self.receive(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise Failure(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def receive(self, deadline):
        import select

        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Failure("Chromium did not answer in time")
            ready, _, _ = select.select([self.from_chrome], [], [], left)
            if ready:
                chunk = os.read(self.from_chrome, 1 << 16)
                if not chunk:
                    raise Failure("Chromium closed the pipe")
                self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def open(self, url):
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        attached = self.send(
            "Target.attachToTarget",
            {"targetId": target["targetId"], "flatten": True},
            session=False,
        )
        self.session = attached["sessionId"]
        self.send("Page.enable")
        self.send("Page.navigate", {"url": url})

    def eval(self, expression):
        result = self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in result:
            raise Failure(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression, what, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.eval(expression)
            if value:
                return value
            time.sleep(0.05)
        raise Failure(f"timed out waiting for {what}")

    def type(self, text):
        """Types `text` where the focus is, a line at a time (each insertion
        fires the page's input event, as typing does)."""
        for line in text.splitlines(keepends=True):
            self.send("Input.insertText", {"text": line})

    def close(self):
        try:
            self.send("Browser.close", session=False, timeout=5)
        except Exception:
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()


def serve(site):
    handler = functools.partial(QuietHandler, directory=site)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def check(condition, what):
    if not condition:
        raise Failure(what)
    print(f"ok: {what}")


def diagnostics(browser):
    return browser.eval(
        "[...document.querySelectorAll('#diagnostics li')].map(li => ({code: li.dataset.code || null, text: li.textContent}))"
    )


def settle(browser):
    """Waits until the diagnostics shown are those of the editor's text."""
    browser.wait_for(
        "window.checkedText === document.getElementById('source').value",
        "the check after typing",
    )


def mouse_over(browser, line, column):
    """Moves the mouse over the character at a 0-based line and column of
    the editor (a monospace grid), as a person would."""
    point = browser.eval(
        f"""(() => {{
            const s = document.getElementById('source');
            const style = getComputedStyle(s);
            const probe = document.createElement('span');
            probe.style.font = style.font;
            probe.textContent = 'x'.repeat(100);
            document.body.append(probe);
            const width = probe.getBoundingClientRect().width / 100;
            probe.remove();
            const rect = s.getBoundingClientRect();
            const height = parseFloat(style.lineHeight);
            return [rect.left + parseFloat(style.paddingLeft) + ({column} + 0.5) * width - s.scrollLeft,
                    rect.top + parseFloat(style.paddingTop) + ({line} + 0.5) * height - s.scrollTop];
        }})()"""
    )
    browser.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": point[0], "y": point[1]})


def scenario(browser, url, screenshot):
    browser.open(url)
    browser.wait_for("document.body?.dataset.ready === 'true'", "the page to load the compiler")
    first = browser.eval("Number(document.body.dataset.firstDiagnosticsMs)")
    print(f"first diagnostics {first} ms after navigation")
    check(first < 1000, f"first diagnostics within 1 s of loading ({first} ms)")
    shown = diagnostics(browser)
    check(
        len(shown) == 1 and shown[0]["code"] is None and "No errors" in shown[0]["text"],
        "the opening example checks clean",
    )

    # Type a program with a mistake: `q` is not defined.
    program = "function f(y!::f64, x::f64)\n    y! += x * q\nend\n"
    browser.eval("(() => { const s = document.getElementById('source'); s.focus(); s.select(); })()")
    browser.type(program)
    settle(browser)
    text = browser.eval("document.getElementById('source').value")
    check(text == program, "the program typed is in the editor")
    shown = diagnostics(browser)
    check(
        [d["code"] for d in shown] == ["E0101"] and "2:15" in shown[0]["text"],
        f"typing an undefined name shows E0101 at 2:15 ({shown})",
    )
    marked = browser.eval("document.querySelector('#backdrop mark')?.textContent")
    check(marked == "q", "the undefined name is underlined")
    # The text area's text is transparent; the backdrop shows the same text,
    # highlighted: the keyword in its colour, `y!` as a changed parameter.
    shown_text = browser.eval("document.getElementById('backdrop').textContent")
    check(shown_text == program + "\n", f"the backdrop shows the text typed ({shown_text!r})")
    keyword = browser.eval(
        "(() => { const k = document.querySelector('#backdrop .hl-keyword-function');"
        " return k && [k.textContent, getComputedStyle(k).color]; })()"
    )
    plain = browser.eval("getComputedStyle(document.getElementById('backdrop')).color")
    check(
        keyword is not None and keyword[0] == "function" and keyword[1] != plain,
        f"`function` is highlighted as a keyword ({keyword}, text {plain})",
    )
    mutated = browser.eval(
        "[...document.querySelectorAll('#backdrop .hl-variable-parameter-mutated')].map((e) => e.textContent)"
    )
    check(mutated == ["y!", "y!"], f"the changed parameter `y!` is marked where it appears ({mutated})")

    # Fix it: select the `q` and type `2.0`.
    at = program.index("q")
    browser.eval(f"document.getElementById('source').setSelectionRange({at}, {at + 1})")
    browser.type("2.0")
    settle(browser)
    shown = diagnostics(browser)
    check(len(shown) == 1 and "No errors" in shown[0]["text"], f"the fixed program checks clean ({shown})")

    # Run it forwards, then through its gradient.
    browser.eval("document.getElementById('function').value = 'f'")
    browser.eval("(() => { const a = document.getElementById('args'); a.focus(); a.select(); })()")
    browser.type("1.0, 2.0")
    browser.eval("document.getElementById('run').click()")
    output = browser.eval("document.getElementById('output').textContent")
    check(output == "y! = 5.0\nx = 2.0", f"Run gives y! = 1 + 2·2.0 ({output!r})")
    browser.eval("document.getElementById('mode').value = 'grad'")
    browser.eval("(() => { const s = document.getElementById('seeds'); s.focus(); s.select(); })()")
    browser.type("y!")
    browser.eval("document.getElementById('run').click()")
    output = browser.eval("document.getElementById('output').textContent")
    check("x_bar = 2.0" in output, f"the gradient gives dy/dx = 2 ({output!r})")

    # Hover at the cursor, the inverse and the generated Rust.
    at = program.index("x * q")
    browser.eval(
        f"(() => {{ const s = document.getElementById('source'); s.focus(); s.setSelectionRange({at}, {at}); s.dispatchEvent(new Event('click')); }})()"
    )
    hover = browser.eval("document.getElementById('cursor').innerText")
    check("f64" in hover, f"the cursor panel shows what the hover shows ({hover!r})")
    # The mouse over the `x` of `x * 2.0`: the hover shows in a tooltip.
    mouse_over(browser, 1, program.splitlines()[1].index("x"))
    tooltip = browser.wait_for(
        "(() => { const t = document.getElementById('tooltip'); return !t.hidden && t.innerText; })()",
        "the hover tooltip",
    )
    check(tooltip.startswith("x::f64"), f"the mouse over `x` shows its hover ({tooltip!r})")
    browser.eval("document.querySelector(\"nav button[data-tab='inverse']\").click()")
    inverse = browser.eval("document.getElementById('inverse').textContent")
    check("y! -= x * 2.0" in inverse, f"the inverse tab shows ~f ({inverse!r})")
    browser.eval("document.querySelector(\"nav button[data-tab='rust']\").click()")
    rust = browser.eval("document.getElementById('rust').textContent")
    check("pub fn f(" in rust, "the Rust tab shows the generated module")

    # The paper's Bessel function, picked from the examples, runs.
    browser.eval(
        "(() => { const e = document.getElementById('examples'); e.value = 'bessel'; e.dispatchEvent(new Event('change')); })()"
    )
    browser.eval("document.querySelector(\"nav button[data-tab='run']\").click()")
    browser.eval("document.getElementById('mode').value = 'call'")
    browser.eval("document.getElementById('run').click()")
    output = browser.eval("document.getElementById('output').textContent")
    # The paper's J2(1.0) = 0.11490348493190048; the docstring example
    # accepts 1e-8 (the series is summed with an approximate multiplier).
    first = output.splitlines()[0] if output else ""
    value = float(first.split("=")[1]) if first.startswith("out! = ") else None
    check(
        value is not None and abs(value - 0.11490348493190048) < 1e-8,
        f"the Bessel example gives the paper's J2(1.0) ({first})",
    )

    if screenshot:
        browser.eval(
            "(() => { const e = document.getElementById('examples'); e.value = 'multiplier'; e.dispatchEvent(new Event('change')); })()"
        )
        browser.eval("document.getElementById('mode').value = 'grad'")
        browser.eval("document.getElementById('seeds').value = 'out!'")
        browser.eval("document.getElementById('run').click()")
        browser.eval(
            "(() => { const s = document.getElementById('source'); const at = s.value.lastIndexOf('x * y'); s.focus(); s.setSelectionRange(at, at); s.dispatchEvent(new Event('click')); })()"
        )
        text = browser.eval("document.getElementById('source').value")
        lines = text.splitlines()
        line = next(i for i, l in enumerate(lines) if "t += x * y" in l)
        mouse_over(browser, line, lines[line].index("x * y"))
        browser.wait_for(
            "(() => { const t = document.getElementById('tooltip'); return !t.hidden && t.innerText.includes('multiplier'); })()",
            "the tooltip",
        )
        shot = browser.send("Page.captureScreenshot", {"format": "png"})
        with open(screenshot, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        print(f"screenshot: {screenshot}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", default=os.path.join(ROOT, "target", "playground"))
    parser.add_argument("--screenshot")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    args = parser.parse_args()
    if not os.path.exists(os.path.join(args.site, "nilang_playground.wasm")):
        sys.exit(f"error: no playground in {args.site}; build it with playground/build.sh")
    if not shutil.which(args.chromium):
        sys.exit("error: Chromium is missing; install Debian's chromium package")
    server = serve(args.site)
    url = f"http://127.0.0.1:{server.server_address[1]}/index.html"
    with tempfile.TemporaryDirectory() as profile:
        browser = Browser(args.chromium, profile)
        try:
            scenario(browser, url, args.screenshot)
        except Failure as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
        finally:
            browser.close()
            server.shutdown()
    print("the playground works in Chromium")
    return 0


if __name__ == "__main__":
    sys.exit(main())
