"""The web console at /console in real headless Chromium against a real `hearth serve --dev`."""

import requests
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from conftest import PROJECT, Hearth, screenshot

DOCS = f"/v1/projects/{PROJECT}/databases/(default)/documents"
# Generous bounds: these are shared 2-core machines; a live update normally lands within milliseconds.
WAIT = 10


def wait(driver):
    return WebDriverWait(driver, WAIT)


def open_console(driver, server):
    driver.get(f"{server.url}/console")
    wait(driver).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#collections")))
    wait(driver).until(EC.text_to_be_present_in_element((By.ID, "live"), "●"))


def click(driver, locator):
    """Clicks the element `locator` finds, finding it again if a live update re-rendered it meanwhile."""
    for _ in range(5):
        try:
            wait(driver).until(EC.element_to_be_clickable(locator)).click()
            return
        except StaleElementReferenceException:
            continue
    raise AssertionError(f"{locator} kept being re-rendered")


def collection_item(driver, name):
    return wait(driver).until(EC.element_to_be_clickable(
        (By.XPATH, f"//div[@id='collections']//li[normalize-space(.)='{name}']")))


def document_item(driver, doc_id):
    return wait(driver).until(EC.element_to_be_clickable((By.CSS_SELECTOR, f"#documents li[data-id='{doc_id}']")))


def test_a_collection_and_document_made_in_the_console_are_in_the_rest_api(browser, dev_server):
    open_console(browser, dev_server)
    form = browser.find_element(By.ID, "start-collection")
    form.find_element(By.NAME, "collection").send_keys("todos")
    form.find_element(By.NAME, "documentId").send_keys("first")
    form.find_element(By.TAG_NAME, "button").click()
    document_item(browser, "first")
    field_form = wait(browser).until(EC.presence_of_element_located((By.ID, "add-field")))
    field_form.find_element(By.NAME, "field").send_keys("title")
    field_form.find_element(By.NAME, "value").send_keys("Buy milk")
    field_form.find_element(By.TAG_NAME, "button").click()
    wait(browser).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#document tr[data-field='title']")))
    # An integer field, typed as such.
    field_form = browser.find_element(By.ID, "add-field")
    field_form.find_element(By.NAME, "field").send_keys("importance")
    field_form.find_element(By.NAME, "type").send_keys("integer")
    field_form.find_element(By.NAME, "value").send_keys("3")
    field_form.find_element(By.TAG_NAME, "button").click()
    row = wait(browser).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#document tr[data-field='importance']")))
    assert "integer" in row.text
    screenshot(browser, "documents")

    answer = requests.get(f"{dev_server.url}{DOCS}/todos/first", timeout=10)
    assert answer.status_code == 200, answer.text
    assert answer.json()["fields"] == {"title": {"stringValue": "Buy milk"}, "importance": {"integerValue": "3"}}


def test_a_bad_value_is_explained_next_to_the_form_and_writes_nothing(browser, dev_server):
    requests.post(f"{dev_server.url}{DOCS}/todos", params={"documentId": "a"}, json={"fields": {}}, timeout=10)
    open_console(browser, dev_server)
    collection_item(browser, "todos").click()
    document_item(browser, "a").click()
    form = wait(browser).until(EC.presence_of_element_located((By.ID, "add-field")))
    form.find_element(By.NAME, "field").send_keys("n")
    form.find_element(By.NAME, "type").send_keys("integer")
    form.find_element(By.NAME, "value").send_keys("three")
    form.find_element(By.TAG_NAME, "button").click()
    error = wait(browser).until(EC.visibility_of_element_located((By.ID, "error")))
    assert "integer" in error.text
    assert requests.get(f"{dev_server.url}{DOCS}/todos/a", timeout=10).json().get("fields", {}) == {}


def test_a_write_made_with_the_rest_api_appears_in_an_open_console(browser, dev_server):
    requests.post(f"{dev_server.url}{DOCS}/todos", params={"documentId": "old"}, json={"fields": {}}, timeout=10)
    open_console(browser, dev_server)
    collection_item(browser, "todos").click()
    click(browser, (By.CSS_SELECTOR, "#documents li[data-id='old']"))
    created = requests.post(f"{dev_server.url}{DOCS}/todos", params={"documentId": "fresh"},
                            json={"fields": {"title": {"stringValue": "from curl"}}}, timeout=10)
    assert created.status_code == 200, created.text
    document_item(browser, "fresh")
    # A change to the open document refreshes its fields; a delete removes its row.
    requests.patch(f"{dev_server.url}{DOCS}/todos/old", json={"fields": {"done": {"booleanValue": True}}}, timeout=10)
    wait(browser).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#document tr[data-field='done']")))
    requests.delete(f"{dev_server.url}{DOCS}/todos/fresh", timeout=10)
    wait(browser).until(EC.invisibility_of_element_located((By.CSS_SELECTOR, "#documents li[data-id='fresh']")))


def test_a_query_answers_with_its_results_and_explain_metrics(browser, dev_server):
    for doc_id, importance in (("a", 1), ("b", 5), ("c", 3)):
        requests.post(f"{dev_server.url}{DOCS}/todos", params={"documentId": doc_id},
                      json={"fields": {"importance": {"integerValue": str(importance)}}}, timeout=10)
    open_console(browser, dev_server)
    collection_item(browser, "todos").click()
    form = wait(browser).until(EC.presence_of_element_located((By.ID, "query")))
    form.find_element(By.NAME, "where").send_keys("importance")
    form.find_element(By.NAME, "op").send_keys(">=")
    form.find_element(By.NAME, "type").send_keys("integer")
    form.find_element(By.NAME, "value").send_keys("3")
    form.find_element(By.NAME, "orderBy").send_keys("importance")
    form.find_element(By.NAME, "direction").send_keys("descending")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    results = wait(browser).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#query-results li")))
    items = [item.text for item in browser.find_elements(By.CSS_SELECTOR, "#query-results li")]
    assert items == ["b", "c"]
    summary = browser.find_element(By.CSS_SELECTOR, "#query-results p").text
    assert summary.startswith("2 result(s)") and "index" in summary, summary
    screenshot(browser, "query")
    results.click()
    wait(browser).until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, "#document h2"), "b"))


def test_a_query_ands_several_filters(browser, dev_server):
    for doc_id, importance, done in (("a", 1, False), ("b", 5, True), ("c", 3, False), ("d", 4, False)):
        requests.post(f"{dev_server.url}{DOCS}/chores", params={"documentId": doc_id},
                      json={"fields": {"importance": {"integerValue": str(importance)},
                                       "done": {"booleanValue": done}}}, timeout=10)
    open_console(browser, dev_server)
    collection_item(browser, "chores").click()
    form = wait(browser).until(EC.presence_of_element_located((By.ID, "query")))
    form.find_element(By.NAME, "addFilter").click()
    rows = form.find_elements(By.CSS_SELECTOR, ".filter")
    assert len(rows) == 2
    rows[0].find_element(By.NAME, "where").send_keys("importance")
    rows[0].find_element(By.NAME, "op").send_keys(">=")
    rows[0].find_element(By.NAME, "type").send_keys("integer")
    rows[0].find_element(By.NAME, "value").send_keys("3")
    rows[1].find_element(By.NAME, "where").send_keys("done")
    rows[1].find_element(By.NAME, "op").send_keys("==")
    rows[1].find_element(By.NAME, "type").send_keys("boolean")
    rows[1].find_element(By.NAME, "value").send_keys("false")
    form.find_element(By.NAME, "orderBy").send_keys("importance")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait(browser).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#query-results li")))
    items = [item.text for item in browser.find_elements(By.CSS_SELECTOR, "#query-results li")]
    assert items == ["c", "d"], items


def test_document_content_is_shown_as_text_and_runs_nothing(browser, dev_server):
    hostile = {
        "img": {"stringValue": "<img src=x onerror=\"window.__xss=1\">"},
        "script": {"stringValue": "<script>window.__xss=2</script>"},
        "<b onmouseover=window.__xss=3>name</b>": {"stringValue": "field name"},
    }
    answer = requests.post(f"{dev_server.url}{DOCS}/evil", params={"documentId": "<svg onload=window.__xss=4>"},
                           json={"fields": hostile}, timeout=10)
    assert answer.status_code == 200, answer.text
    open_console(browser, dev_server)
    collection_item(browser, "evil").click()
    document_item(browser, "<svg onload=window.__xss=4>").click()
    row = wait(browser).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#document tr[data-field='img']")))
    assert "<img src=x onerror=\"window.__xss=1\">" in row.text
    assert "<script>window.__xss=2</script>" in browser.find_element(By.ID, "document").text
    assert browser.find_elements(By.CSS_SELECTOR, "#document img, #document script, #document svg, #document b") == []
    assert browser.execute_script("return window.__xss === undefined")
    assert browser.find_elements(By.CSS_SELECTOR, "body img, body svg") == []


def test_a_tree_leaf_is_edited_in_place(browser, dev_server):
    requests.put(f"{dev_server.url}/rooms.json", json={"lobby": {"title": "Lobby", "visits": 1}}, timeout=10)
    open_console(browser, dev_server)
    browser.find_element(By.ID, "tab-tree").click()
    wait(browser).until(EC.element_to_be_clickable((By.CSS_SELECTOR, "li[data-path='rooms'] > .toggle"))).click()
    wait(browser).until(EC.element_to_be_clickable((By.CSS_SELECTOR, "li[data-path='rooms/lobby'] > .toggle"))).click()
    # Shallow reads show keys only; opening a key that holds a leaf shows its value.
    wait(browser).until(EC.element_to_be_clickable(
        (By.CSS_SELECTOR, "li[data-path='rooms/lobby/title'] > .toggle"))).click()
    wait(browser).until(EC.text_to_be_present_in_element(
        (By.CSS_SELECTOR, "li[data-path='rooms/lobby/title'] > .value"), '"Lobby"'))
    value = browser.find_element(By.CSS_SELECTOR, "li[data-path='rooms/lobby/title'] > .value")
    value.click()
    field = wait(browser).until(EC.presence_of_element_located((By.CSS_SELECTOR, "li[data-path='rooms/lobby/title'] > input")))
    field.clear()
    field.send_keys("Main hall" + Keys.ENTER)
    wait(browser).until(EC.text_to_be_present_in_element(
        (By.CSS_SELECTOR, "li[data-path='rooms/lobby/title'] > .value"), '"Main hall"'))
    screenshot(browser, "tree")
    assert requests.get(f"{dev_server.url}/rooms/lobby/title.json", timeout=10).json() == "Main hall"
    # A child added in the console.
    form = browser.find_element(By.CSS_SELECTOR, "li[data-path='rooms/lobby'] > form.add-child")
    form.find_element(By.NAME, "key").send_keys("open")
    form.find_element(By.NAME, "value").send_keys("true")
    form.find_element(By.TAG_NAME, "button").click()
    wait(browser).until(EC.presence_of_element_located((By.CSS_SELECTOR, "li[data-path='rooms/lobby/open']")))
    assert requests.get(f"{dev_server.url}/rooms/lobby/open.json", timeout=10).json() is True


def test_outside_dev_mode_the_console_asks_for_the_admin_key_first():
    server = Hearth(dev=False)
    try:
        assert 'id="admin-key"' in requests.get(f"{server.url}/console", timeout=10).text
        answer = requests.get(f"{server.url}/console/console.js", timeout=10)
        assert answer.status_code == 401, answer.text
        assert answer.json()["error"]["status"] == "UNAUTHENTICATED"
    finally:
        server.stop()
