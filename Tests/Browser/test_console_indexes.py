"""The console's Indexes page in real headless Chromium: an index development mode learned from a query shows with
its fields and state; a building one with its progress, read again while the build goes on."""

import requests
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from conftest import PROJECT, Hearth, screenshot

DOCS = f"/v1/projects/{PROJECT}/databases/(default)/documents"


def test_a_learned_index_is_listed_with_its_fields_and_state(browser, dev_server):
    for rank, owner in enumerate(["ann", "bob", "ann"]):
        requests.post(f"{dev_server.url}{DOCS}/notes", json={"fields": {
            "owner": {"stringValue": owner}, "rank": {"integerValue": str(rank)}}}, timeout=10)
    query = {"structuredQuery": {"from": [{"collectionId": "notes"}],
                                 "where": {"fieldFilter": {"field": {"fieldPath": "owner"}, "op": "EQUAL",
                                                           "value": {"stringValue": "ann"}}},
                                 "orderBy": [{"field": {"fieldPath": "rank"}, "direction": "DESCENDING"}]}}
    answer = requests.post(f"{dev_server.url}{DOCS}:runQuery", json=query, timeout=10)
    assert answer.status_code == 200, answer.text
    browser.get(f"{dev_server.url}/console")
    WebDriverWait(browser, 10).until(EC.element_to_be_clickable((By.ID, "tab-indexes"))).click()

    def learned_row(driver):
        rows = driver.find_elements(By.CSS_SELECTOR, "#declared-indexes tbody tr")
        if not rows:
            driver.find_element(By.CSS_SELECTOR, "#declared-indexes h2 button").click()
            return False
        return rows[0]

    row = WebDriverWait(browser, 10).until(learned_row)
    assert "notes" in row.text
    assert "owner ascending, rank descending" in row.text
    assert row.find_element(By.CSS_SELECTOR, "td.state").text in ("building", "ready")
    assert "development mode" in browser.find_element(By.ID, "missing-indexes").text


def query_needing(field, direction):
    return {"structuredQuery": {"from": [{"collectionId": "notes"}],
                                "where": {"fieldFilter": {"field": {"fieldPath": "owner"}, "op": "EQUAL",
                                                          "value": {"stringValue": "ann"}}},
                                "orderBy": [{"field": {"fieldPath": field}, "direction": direction}]}}


def test_a_building_index_shows_its_progress_and_the_page_follows_the_build(browser):
    # The test-only gate stops every build after one step of 500 documents: the build stays half done.
    server = Hearth(env={"HEARTH_TEST_INDEX_BUILD_STEPS": "1"})
    try:
        root = f"projects/{PROJECT}/databases/(default)/documents"
        for batch in range(3):
            writes = [{"update": {"name": f"{root}/notes/n{n}", "fields": {
                "owner": {"stringValue": "ann" if n % 2 == 0 else "bob"}, "rank": {"integerValue": str(n)},
                "size": {"integerValue": str(n % 7)}}}} for n in range(batch * 400, batch * 400 + 400)]
            answer = requests.post(f"{server.url}{DOCS}:commit", json={"writes": writes}, timeout=30)
            assert answer.status_code == 200, answer.text
        answer = requests.post(f"{server.url}{DOCS}:runQuery", json=query_needing("rank", "DESCENDING"), timeout=30)
        assert answer.status_code == 200, answer.text
        browser.get(f"{server.url}/console")
        WebDriverWait(browser, 10).until(EC.element_to_be_clickable((By.ID, "tab-indexes"))).click()

        def state_of(fields):
            def find(driver):
                for row in driver.find_elements(By.CSS_SELECTOR, "#declared-indexes tbody tr"):
                    if fields in row.text:
                        return row.find_element(By.CSS_SELECTOR, "td.state")
                return False
            return find

        def showing(fields, text):
            def check(driver):
                try:
                    cell = state_of(fields)(driver)
                    return cell if cell and text in cell.text else False
                except StaleElementReferenceException:
                    return False
            return check

        cell = WebDriverWait(browser, 15).until(
            showing("rank descending", "building: 500 of 1,200 documents (41%)"))
        bar = cell.find_element(By.TAG_NAME, "progress")
        assert bar.get_attribute("value") == "500" and bar.get_attribute("max") == "1200"
        listed = requests.get(f"{server.url}/v1/projects/{PROJECT}/databases/(default)/collectionGroups/-/indexes",
                              timeout=10).json()["indexes"][0]
        assert listed["state"] == "CREATING"
        assert listed["progressDocuments"] == {"completedWork": "500", "estimatedWork": "1200"}
        screenshot(browser, "indexes")
        # While an index builds the page reads the list again by itself: an index learned now appears, building,
        # without Refresh.
        answer = requests.post(f"{server.url}{DOCS}:runQuery", json=query_needing("size", "ASCENDING"), timeout=30)
        assert answer.status_code == 200, answer.text
        WebDriverWait(browser, 15).until(showing("size ascending", "building"))
    finally:
        server.stop()
