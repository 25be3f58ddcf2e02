"""The console's Rules page in real headless Chromium: a rules change with a syntax error is refused and shown at
its line, a valid one is in force for the next request, and the playground judges a draft and names the rule."""

import requests
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from conftest import PROJECT, screenshot

DOCS = f"/v1/projects/{PROJECT}/databases/(default)/documents"
WAIT = 10

CLOSED = """rules_version = '2';
service cloud.firestore {
  match /databases/{database}/documents {
    match /notes/{id} {
      allow read: if false;
    }
  }
}"""
BROKEN = CLOSED.replace("allow read: if false;", "allow read: if ;")
OPEN = CLOSED.replace("allow read: if false;", "allow read: if request.auth != null && request.auth.uid == 'ann';")


def set_source(driver, text):
    editor = driver.find_element(By.ID, "rules-source")
    driver.execute_script("arguments[0].value = arguments[1];", editor, text)
    return editor


def test_rules_are_deployed_with_errors_shown_at_their_line_and_judged_in_the_playground(browser, dev_server):
    requests.post(f"{dev_server.url}{DOCS}/notes", params={"documentId": "n1"},
                  json={"fields": {"t": {"stringValue": "hi"}}}, timeout=10)
    browser.get(f"{dev_server.url}/console")
    WebDriverWait(browser, WAIT).until(EC.element_to_be_clickable((By.ID, "tab-rules"))).click()
    editor = WebDriverWait(browser, WAIT).until(EC.presence_of_element_located((By.ID, "rules-source")))
    WebDriverWait(browser, WAIT).until(lambda d: "service cloud.firestore" in editor.get_attribute("value"))

    set_source(browser, BROKEN)
    browser.find_element(By.ID, "rules-deploy").click()
    WebDriverWait(browser, WAIT).until(
        EC.text_to_be_present_in_element((By.ID, "rules-status"), "Not deployed"))
    text = browser.find_element(By.ID, "rules-status").text
    assert "line 5, column" in text, text
    # The editor selects the line with the error.
    selected = browser.execute_script(
        "const e = document.getElementById('rules-source'); return e.value.slice(e.selectionStart, e.selectionEnd);")
    assert "allow read: if ;" in selected
    # The open rules of dev mode are still in force.
    assert requests.get(f"{dev_server.url}{DOCS}/notes/n1", timeout=10).status_code == 200

    set_source(browser, CLOSED)
    browser.find_element(By.ID, "rules-deploy").click()
    WebDriverWait(browser, WAIT).until(EC.text_to_be_present_in_element((By.ID, "rules-status"), "Deployed"))
    denied = requests.get(f"{dev_server.url}{DOCS}/notes/n1", timeout=10)
    assert denied.status_code == 403, denied.text

    # The playground judges the text in the editor, before it is deployed.
    set_source(browser, OPEN)
    form = browser.find_element(By.ID, "rules-playground")
    form.find_element(By.NAME, "path").send_keys("notes/n1")
    form.find_element(By.NAME, "uid").send_keys("ann")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    WebDriverWait(browser, WAIT).until(EC.text_to_be_present_in_element((By.ID, "rules-verdict"), "ALLOWED"))
    assert "line 5" in browser.find_element(By.ID, "rules-verdict").text
    screenshot(browser, "rules")
    uid = form.find_element(By.NAME, "uid")
    uid.clear()
    uid.send_keys("bob")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    WebDriverWait(browser, WAIT).until(EC.text_to_be_present_in_element((By.ID, "rules-verdict"), "DENIED"))
    # Judged, not deployed: the closed rules still refuse everyone.
    assert requests.get(f"{dev_server.url}{DOCS}/notes/n1", timeout=10).status_code == 403


def test_tree_rules_are_edited_and_deployed(browser, dev_server):
    browser.get(f"{dev_server.url}/console")
    WebDriverWait(browser, WAIT).until(EC.element_to_be_clickable((By.ID, "tab-rules"))).click()
    WebDriverWait(browser, WAIT).until(EC.element_to_be_clickable((By.ID, "rules-database"))).click()
    # The page replaces the editor when the tree rules arrive, so an element found just before may be gone: look again.
    WebDriverWait(browser, WAIT, ignored_exceptions=[StaleElementReferenceException]).until(
        lambda d: '"rules"' in d.find_element(By.ID, "rules-source").get_attribute("value"))
    set_source(browser, '{"rules": {".read": false, ".write": false}}')
    browser.find_element(By.ID, "rules-deploy").click()
    WebDriverWait(browser, WAIT).until(EC.text_to_be_present_in_element((By.ID, "rules-status"), "Deployed"))
    assert requests.get(f"{dev_server.url}/anything.json", timeout=10).status_code == 401
    set_source(browser, '{"rules": {".read": tru}}')
    browser.find_element(By.ID, "rules-deploy").click()
    WebDriverWait(browser, WAIT).until(EC.text_to_be_present_in_element((By.ID, "rules-status"), "Not deployed"))
