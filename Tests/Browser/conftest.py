"""Fixtures for the browser tests: a real `hearth serve` (the compatibility tests' harness) and real headless
Chromium driven through Debian's chromedriver, never a downloaded one."""

import importlib.util
import os
import pathlib
import shutil

import pytest

HERE = pathlib.Path(__file__).resolve().parent
SCREENSHOTS = HERE.parents[1] / "docs" / "console"

_spec = importlib.util.spec_from_file_location("hearth_harness", HERE.parent / "Compatibility" / "conftest.py")
harness = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(harness)
Hearth = harness.Hearth
PROJECT = harness.PROJECT


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.fail("no Chromium: `make test` installs Debian's chromium and chromium-driver")


def _chromedriver():
    path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    if not os.access(path, os.X_OK):
        pytest.fail("no chromedriver: `make test` installs Debian's chromium-driver")
    return path


@pytest.fixture(scope="session")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = _chromium()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,800", "--no-first-run", "--disable-extensions"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(executable_path=_chromedriver()), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


@pytest.fixture()
def dev_server():
    server = Hearth()
    yield server
    server.stop()


def screenshot(driver, name):
    """Saves the page as docs/console/NAME.png, linked from the README's Console section."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SCREENSHOTS / f"{name}.png"))
