"""User content cannot act as the admin in real headless Chromium: an HTML page uploaded to Storage is served on the
console's own origin, but sandboxed, so its script cannot read the console's page (with its CSRF token) even in the
browser of a signed-in admin."""

import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from conftest import PROJECT, Hearth

KEY = "console-isolation-admin-key-0123456789"
BUCKET = f"{PROJECT}.appspot.com"
PAGE = b"""<!doctype html><title>waiting</title><script>
fetch('/console', { credentials: 'include' })
  .then((answer) => answer.text())
  .then((text) => { document.title = text.includes('hearth-csrf') ? 'read the console' : 'no console'; })
  .catch(() => { document.title = 'refused'; });
</script>"""


def test_an_uploaded_page_cannot_read_the_console_of_a_signed_in_admin(browser):
    server = Hearth(dev=False, env={"HEARTH_ADMIN_KEY": KEY})
    try:
        uploaded = requests.post(f"{server.url}/v0/b/{BUCKET}/o", params={"name": "pages/trap.html"}, data=PAGE,
                                 headers={"Content-Type": "text/html", "Authorization": f"Bearer {KEY}"},
                                 timeout=10)
        assert uploaded.status_code == 200, uploaded.text
        token = uploaded.json()["downloadTokens"].split(",")[0]
        browser.delete_all_cookies()
        browser.get(f"{server.url}/console")
        WebDriverWait(browser, 10).until(EC.presence_of_element_located((By.ID, "admin-key"))).send_keys(KEY)
        browser.find_element(By.CSS_SELECTOR, "#sign-in button").click()
        WebDriverWait(browser, 10).until(EC.element_to_be_clickable((By.ID, "tab-accounts")))
        browser.get(f"{server.url}/v0/b/{BUCKET}/o/pages%2Ftrap.html?alt=media&token={token}")
        WebDriverWait(browser, 10).until(lambda driver: driver.title != "waiting")
        assert browser.title == "refused", browser.title
    finally:
        browser.delete_all_cookies()
        server.stop()
