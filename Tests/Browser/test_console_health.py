"""The console's Health page in real headless Chromium: live charts drawn from /metrics move with the load."""

import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from conftest import PROJECT, screenshot

DOCS = f"/v1/projects/{PROJECT}/databases/(default)/documents"


def chart_value(driver, name):
    return driver.find_element(By.CSS_SELECTOR, f"#chart-{name} .chart-value").text


def test_the_charts_follow_requests_and_commits(browser, dev_server):
    metrics = requests.get(f"{dev_server.url}/metrics", timeout=10).text
    for name in ("hearth_wal_bytes", "hearth_listen_targets", "hearth_tree_listeners"):
        assert f"\n{name} " in metrics, name
    browser.get(f"{dev_server.url}/console")
    WebDriverWait(browser, 10).until(EC.element_to_be_clickable((By.ID, "tab-health"))).click()
    WebDriverWait(browser, 10).until(EC.presence_of_element_located((By.ID, "chart-commits")))
    assert {e.get_attribute("id") for e in browser.find_elements(By.CSS_SELECTOR, ".chart")} == {
        "chart-requests", "chart-latency", "chart-connections", "chart-listeners", "chart-commits",
        "chart-database", "chart-wal"}
    # A tree stream held open by another client: the listeners chart counts it.
    stream = requests.get(f"{dev_server.url}/rooms.json", headers={"Accept": "text/event-stream"}, stream=True,
                          timeout=30)
    assert stream.status_code == 200
    try:
        WebDriverWait(browser, 10).until(lambda d: float(chart_value(d, "listeners")) >= 1)
    finally:
        stream.close()

    def commits_seen(driver):
        for index in range(20):
            requests.post(f"{dev_server.url}{DOCS}/health", json={"fields": {"n": {"integerValue": str(index)}}},
                          timeout=10)
        return float(chart_value(driver, "commits").removesuffix("/s")) > 0

    WebDriverWait(browser, 20, poll_frequency=0.5).until(commits_seen)
    assert float(chart_value(browser, "requests").removesuffix("/s")) > 0
    points = browser.find_element(By.CSS_SELECTOR, "#chart-commits polyline").get_attribute("points").split()
    assert len(points) >= 2
    assert float(chart_value(browser, "database").removesuffix(" MiB")) > 0
    screenshot(browser, "health")
