"""The Accounts page's sign-in methods in real headless Chromium: the methods and providers with their settings (a
secret never in full), the settings fixed at start shown read-only, and the authorized domains changed from the page
(a bad one refused with the server's words beside the field), each checked through the admin configuration API."""

import json
import os
import tempfile

import requests
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from conftest import PROJECT, Hearth, screenshot

KEY = "console-signin-methods-admin-key-0123456789"
SECRET = "facebook-app-secret-wxyz4321"
ADMIN = {"Authorization": f"Bearer {KEY}"}


def domains_listed(driver):
    try:
        return [item.get_attribute("data-domain")
                for item in driver.find_elements(By.CSS_SELECTOR, "#authorized-domains li")]
    except StaleElementReferenceException:
        return None


def test_sign_in_methods_are_shown_and_the_authorized_domains_changed_from_the_page(browser):
    secret_file = tempfile.NamedTemporaryFile("w", suffix=".secret", delete=False)
    secret_file.write(SECRET)
    secret_file.close()
    providers = {"google.com": {"clientIds": ["web.apps.googleusercontent.com"]},
                 "facebook.com": {"clientIds": ["1234567890"], "clientSecretFile": secret_file.name}}
    server = Hearth("--providers", json.dumps(providers), "--authorized-domains", "app.example.com", dev=False,
                    env={"HEARTH_ADMIN_KEY": KEY})
    try:
        browser.delete_all_cookies()
        browser.get(f"{server.url}/console")
        WebDriverWait(browser, 10).until(EC.presence_of_element_located((By.ID, "admin-key"))).send_keys(KEY)
        browser.find_element(By.CSS_SELECTOR, "#sign-in button").click()
        WebDriverWait(browser, 10).until(EC.element_to_be_clickable((By.ID, "tab-accounts"))).click()
        methods = WebDriverWait(browser, 10).until(EC.presence_of_element_located((By.ID, "sign-in-method-list")))
        text = methods.text
        assert "Email/password enabled" in text
        assert "Phone not available" in text
        assert "google.com enabled" in text and "web.apps.googleusercontent.com" in text
        assert "facebook.com enabled" in text and "••••4321" in text
        assert SECRET not in browser.page_source
        fixed = browser.find_element(By.ID, "fixed-settings").text
        assert "--multiple-accounts-per-email" in fixed and "--email-enumeration-protection" in fixed
        assert domains_listed(browser) == ["app.example.com"]

        # A bad domain: refused, the server's words beside the field, and nothing changes.
        field = browser.find_element(By.ID, "new-domain")
        field.send_keys("https://evil.example/")
        browser.find_element(By.CSS_SELECTOR, "#add-domain button").click()
        error = WebDriverWait(browser, 10).until(EC.visibility_of_element_located((By.ID, "domain-error")))
        assert "not a host name" in error.text
        config = f"{server.url}/admin/v2/projects/{PROJECT}/config"
        assert requests.get(config, headers=ADMIN, timeout=10).json()["authorizedDomains"] == ["app.example.com"]

        field = browser.find_element(By.ID, "new-domain")
        field.clear()
        field.send_keys("new.example.com")
        browser.find_element(By.CSS_SELECTOR, "#add-domain button").click()
        WebDriverWait(browser, 10).until(lambda d: domains_listed(d) == ["app.example.com", "new.example.com"])
        assert not browser.find_element(By.ID, "domain-error").is_displayed()
        assert requests.get(config, headers=ADMIN, timeout=10).json()["authorizedDomains"] == [
            "app.example.com", "new.example.com"]
        browser.find_element(By.CSS_SELECTOR, '#authorized-domains li[data-domain="app.example.com"] button').click()
        WebDriverWait(browser, 10).until(lambda d: domains_listed(d) == ["new.example.com"])
        assert requests.get(config, headers=ADMIN, timeout=10).json()["authorizedDomains"] == ["new.example.com"]
        browser.set_window_size(1280, 1100)
        browser.execute_script("document.getElementById('sign-in-methods').scrollIntoView()")
        screenshot(browser, "sign-in-methods")
    finally:
        browser.set_window_size(1280, 800)
        browser.delete_all_cookies()
        server.stop()
        os.unlink(secret_file.name)
