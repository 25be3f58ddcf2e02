"""`/__/auth/handler` in real headless Chromium against `hearth serve --dev`: a web page's "Log in with Facebook"
goes through the development provider picker and comes back to the page with the user's tokens in the fragment."""

import base64
import json
import urllib.parse

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

WAIT = 15


def fragment(url):
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).fragment))


def claims(id_token):
    payload = id_token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def sign_in(browser, server, page):
    start = (f"{server.url}/__/auth/handler?apiKey=web&providerId=facebook.com"
             f"&redirectUrl={urllib.parse.quote(page, safe='')}")
    browser.get(start)
    WebDriverWait(browser, WAIT).until(EC.text_to_be_present_in_element((By.TAG_NAME, "h1"), "facebook.com"))


def test_a_page_signs_in_through_the_handler_and_the_picker(browser, dev_server):
    page = f"{dev_server.url}/healthz"
    sign_in(browser, dev_server, page)
    browser.find_element(By.NAME, "email").send_keys("fay@example.com")
    browser.find_element(By.NAME, "displayName").send_keys("Fay")
    browser.find_element(By.XPATH, "//form[.//input[@name='email']]//button").click()
    WebDriverWait(browser, WAIT).until(lambda driver: "#" in driver.current_url)
    assert browser.current_url.startswith(page + "#"), browser.current_url
    first = fragment(browser.current_url)
    assert first["providerId"] == "facebook.com"
    assert first["isNewUser"] == "true"
    assert first["email"] == "fay@example.com"
    token = claims(first["idToken"])
    assert token["user_id"] == first["localId"]
    assert token["firebase"]["sign_in_provider"] == "facebook.com"
    assert token["email"] == "fay@example.com"

    # Again, picking the account the picker now lists: the same user, not a new one.
    sign_in(browser, dev_server, page)
    browser.find_element(By.XPATH, "//button[contains(., 'fay@example.com')]").click()
    WebDriverWait(browser, WAIT).until(lambda driver: "#" in driver.current_url)
    second = fragment(browser.current_url)
    assert second["localId"] == first["localId"]
    assert second["isNewUser"] == "false"


def test_a_page_on_another_site_is_refused(browser, dev_server):
    browser.get(f"{dev_server.url}/__/auth/handler?providerId=facebook.com"
                f"&redirectUrl={urllib.parse.quote('https://evil.example/steal', safe='')}")
    WebDriverWait(browser, WAIT).until(EC.presence_of_element_located((By.TAG_NAME, "h1")))
    assert "authorized domain" in browser.find_element(By.TAG_NAME, "h1").text
    assert browser.current_url.startswith(dev_server.url)
