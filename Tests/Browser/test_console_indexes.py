"""The console's Indexes page in real headless Chromium: an index development mode learned from a query shows with
its fields and state."""

import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from conftest import PROJECT, screenshot

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
    screenshot(browser, "indexes")
