"""Headless Chromium driven by Selenium, for the page's browser tests and bench/page_load.py.

Debian's `chromium` and `chromium-driver` (`.ci/run` installs them as root): the driver
and the browser come from one package version, so they always match, and nothing is
downloaded (Selenium Manager is never asked: both paths are given).  ``start()`` returns
a :class:`Browser`; ``close()`` quits it and kills, by pid, whatever the driver started
that is still running (a test leaves no browser behind).
"""
import base64
import json
import os
import shutil
import signal
import tempfile

from tests.procs import descendants, wait_gone

CHROMIUM = ("/usr/bin/chromium", "/usr/lib/chromium/chromium")
DRIVER = ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver")


def _first(paths):
    for p in paths:
        if os.access(p, os.X_OK):
            return p
    return None


def missing():
    """None when a browser test can run here, else why not (a skip reason)."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (it is in the dev extra: `make venv`)"
    if _first(CHROMIUM) is None or _first(DRIVER) is None:
        return ("Chromium is not installed: `apt-get install chromium chromium-driver` "
                "(.ci/run does it as root)")
    return None


class Browser:
    def __init__(self, driver, service, profile_dir):
        self.driver = driver
        self.service = service
        self.profile_dir = profile_dir

    # -- what the page did ----------------------------------------------------------------
    def console_errors(self):
        """The console's errors and warnings since the last call (CSP violations, failed
        loads, uncaught exceptions)."""
        return [e for e in self.driver.get_log("browser")
                if e.get("level") in ("SEVERE", "WARNING")]

    def requested_urls(self):
        """Every URL the browser asked for since the last call (the network log)."""
        urls = []
        for entry in self.driver.get_log("performance"):
            msg = json.loads(entry["message"])["message"]
            if msg.get("method") == "Network.requestWillBeSent":
                urls.append(msg["params"]["request"]["url"])
        return urls

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def text(self, css):
        from selenium.common.exceptions import StaleElementReferenceException
        from selenium.webdriver.common.by import By

        for _ in range(4):  # the page redraws whole cards: one may go between find and read
            try:
                return self.driver.find_element(By.CSS_SELECTOR, css).text
            except StaleElementReferenceException:
                continue
        return self.driver.find_element(By.CSS_SELECTOR, css).text

    def wait(self, script, what, timeout=30, *args, show=("main",)):
        """Poll ``script`` (JavaScript returning a value, given ``args``) until it is truthy,
        and return that; else an AssertionError naming ``what`` and the text of each
        ``show`` selector (what the page shows instead)."""
        import time

        end = time.monotonic() + timeout
        while time.monotonic() < end:
            got = self.js(script, *args)
            if got:
                return got
            time.sleep(0.05)
        shown = "\n".join("(%s) %s" % (css, self.text(css)[:1500]) for css in show)
        raise AssertionError("%s did not show %s within %g s; it shows:\n%s" % (
            getattr(self, "name", "the page"), what, timeout, shown))

    # -- the viewport ---------------------------------------------------------------------
    def viewport(self, width, height, mobile=False):
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 2 if mobile else 1,
            "mobile": mobile})

    def screenshot(self, path, full=True):
        """A PNG of the page (the whole page with ``full``), written to ``path``."""
        opts = {"format": "png", "captureBeyondViewport": full}
        if full:
            size = self.js("return [document.documentElement.scrollWidth,"
                           " document.documentElement.scrollHeight]")
            opts["clip"] = {"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1}
        data = self.driver.execute_cdp_cmd("Page.captureScreenshot", opts)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        pid = self.service.process.pid if self.service.process else None
        left = descendants(pid) if pid else []
        try:
            self.driver.quit()
        except Exception:  # the browser died already: its processes are still reaped below
            pass
        for p in wait_gone(left + ([pid] if pid else []), 10):
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass
        wait_gone(left, 5)
        shutil.rmtree(self.profile_dir, ignore_errors=True)


def start(width=1280, height=900):
    """Headless Chromium with console and network logs kept."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile_dir = tempfile.mkdtemp(prefix="jantaku-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = _first(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                "--disable-background-networking", "--disable-sync",
                "--disable-component-update", "--disable-default-apps",
                "--user-data-dir=" + profile_dir, "--window-size=%d,%d" % (width, height)):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    # the browser's runtime files (PulseAudio's /tmp/pulse-* without a runtime dir) in its
    # profile, removed with it: nothing of a test run outlives it
    service = Service(executable_path=_first(DRIVER), log_output=os.devnull,
                      env=dict(os.environ, XDG_RUNTIME_DIR=profile_dir))
    try:
        driver = webdriver.Chrome(service=service, options=opts)
    except Exception:
        shutil.rmtree(profile_dir, ignore_errors=True)
        if service.process is not None:
            service.stop()
        raise
    driver.set_page_load_timeout(20)
    b = Browser(driver, service, profile_dir)
    driver.get("about:blank")
    b.requested_urls()  # the browser's own start (its new-tab page) is not the page's
    b.console_errors()
    return b
