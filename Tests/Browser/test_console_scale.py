"""The console over 100,000 documents and a tree node with 100,000 leaves, in real headless Chromium: opening the
collection or the node reads one page (checked through /metrics and the page itself), and "More" reads the next."""

import re

import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from conftest import PROJECT

DOCS = f"/v1/projects/{PROJECT}/databases/(default)/documents"
COUNT = 100_000
WAIT = 30


def requests_of(server, route):
    text = requests.get(f"{server.url}/metrics", timeout=10).text
    return sum(float(m.group(1)) for m in re.finditer(
        r'^hearth_http_requests_total\{route="' + re.escape(route) + r'",status="\d+"\} (\S+)$', text, re.M))


def populate(server):
    name = f"projects/{PROJECT}/databases/(default)/documents/big/"
    session = requests.Session()
    for start in range(0, COUNT, 500):
        writes = [{"update": {"name": f"{name}d{n:06d}", "fields": {"n": {"integerValue": str(n)}}}}
                  for n in range(start, start + 500)]
        answer = session.post(f"{server.url}{DOCS}:commit", json={"writes": writes}, timeout=60)
        assert answer.status_code == 200, answer.text
    leaves = {f"k{n:06d}": n for n in range(COUNT)}
    answer = session.put(f"{server.url}/big.json", json=leaves, timeout=120)
    assert answer.status_code == 200, answer.text[:300]


def test_a_large_collection_and_a_large_node_open_one_page_at_a_time(browser, dev_server):
    populate(dev_server)
    browser.get(f"{dev_server.url}/console")
    WebDriverWait(browser, WAIT).until(EC.text_to_be_present_in_element((By.ID, "live"), "●"))
    lists, queries = requests_of(dev_server, "documents.list"), requests_of(dev_server, "documents.runQuery")
    WebDriverWait(browser, WAIT).until(EC.element_to_be_clickable(
        (By.XPATH, "//div[@id='collections']//li[normalize-space(.)='big']"))).click()
    WebDriverWait(browser, WAIT).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#documents li[data-id]")) == 100)
    assert requests_of(dev_server, "documents.list") == lists + 1, "one page of the collection, one request"
    assert requests_of(dev_server, "documents.runQuery") == queries
    browser.find_element(By.XPATH, "//div[@id='documents']//button[normalize-space(.)='More']").click()
    WebDriverWait(browser, WAIT).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#documents li[data-id]")) == 200)

    browser.find_element(By.ID, "tab-tree").click()
    WebDriverWait(browser, WAIT).until(EC.element_to_be_clickable(
        (By.CSS_SELECTOR, "li[data-path='big'] > .toggle"))).click()
    WebDriverWait(browser, WAIT).until(
        lambda d: len(d.find_elements(By.CSS_SELECTOR, "li[data-path='big'] > ul > li[data-path]")) == 100)
    assert browser.find_element(By.CSS_SELECTOR, "li[data-path='big'] > ul > li[data-path]").get_attribute(
        "data-path") == "big/k000000"
    browser.find_element(By.CSS_SELECTOR, "li[data-path='big'] > ul > li.more button").click()
    WebDriverWait(browser, WAIT).until(
        lambda d: len(d.find_elements(By.CSS_SELECTOR, "li[data-path='big'] > ul > li[data-path]")) == 200)
    paths = [e.get_attribute("data-path") for e in
             browser.find_elements(By.CSS_SELECTOR, "li[data-path='big'] > ul > li[data-path]")]
    assert paths == [f"big/k{n:06d}" for n in range(200)]
