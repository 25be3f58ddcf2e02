"""The console's Accounts page in real headless Chromium: users added, disabled, given claims and mailed through the
page, each checked through Identity Toolkit's REST API; and outside dev mode, the same page after a real sign-in."""

import requests
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from conftest import PROJECT, Hearth, screenshot

WAIT = 10
KEY = "console-accounts-admin-key-0123456789"


def wait(driver):
    return WebDriverWait(driver, WAIT)


def lookup(server, email, headers):
    answer = requests.post(
        f"{server.url}/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:lookup",
        json={"email": [email]}, headers=headers, timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()["users"][0]


def open_accounts(driver, server):
    driver.get(f"{server.url}/console")
    wait(driver).until(EC.element_to_be_clickable((By.ID, "tab-accounts"))).click()
    return wait(driver).until(EC.presence_of_element_located((By.ID, "add-user")))


def add_user(driver, email, password="secret-password"):
    form = driver.find_element(By.ID, "add-user")
    form.find_element(By.NAME, "email").send_keys(email)
    form.find_element(By.NAME, "password").send_keys(password)
    form.find_element(By.TAG_NAME, "button").click()
    return wait(driver).until(EC.presence_of_element_located(
        (By.XPATH, f"//table[contains(@class,'users')]//tr[td[1][normalize-space(.)='{email}']]")))


def row_of(driver, email):
    return driver.find_element(By.XPATH, f"//table[contains(@class,'users')]//tr[td[1][normalize-space(.)='{email}']]")


def cell_text(driver, email, css):
    """The text of a cell of `email`'s row, or None while the table is being drawn again."""
    try:
        return row_of(driver, email).find_element(By.CSS_SELECTOR, css).text
    except (NoSuchElementException, StaleElementReferenceException):
        return None


def click_in_row(driver, email, by, value):
    """Clicks a button of `email`'s row, finding it again if the table was drawn again meanwhile."""
    for _ in range(10):
        try:
            wait(driver).until(lambda d: row_of(d, email).find_element(by, value)).click()
            return
        except (NoSuchElementException, StaleElementReferenceException):
            continue
    raise AssertionError(f"the row of {email} kept being drawn again")


def test_users_are_added_disabled_given_claims_and_mailed_from_the_page(browser, dev_server):
    owner = {"Authorization": "Bearer owner"}
    open_accounts(browser, dev_server)
    add_user(browser, "ada@example.com")
    user = lookup(dev_server, "ada@example.com", owner)
    assert user["email"] == "ada@example.com" and not user.get("disabled")

    click_in_row(browser, "ada@example.com", By.CSS_SELECTOR, "button.toggle-disabled")
    wait(browser).until(lambda d: cell_text(d, "ada@example.com", "td.disabled") == "yes")
    assert lookup(dev_server, "ada@example.com", owner)["disabled"] is True
    # A disabled user cannot sign in.
    signed = requests.post(
        f"{dev_server.url}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k",
        json={"email": "ada@example.com", "password": "secret-password", "returnSecureToken": True}, timeout=10)
    assert signed.status_code == 400 and signed.json()["error"]["message"] == "USER_DISABLED", signed.text

    click_in_row(browser, "ada@example.com", By.XPATH, ".//button[normalize-space(.)='Details']")
    claims = wait(browser).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#claims-form textarea")))
    claims.clear()
    claims.send_keys("{not json")
    browser.find_element(By.CSS_SELECTOR, "#claims-form button").click()
    error = wait(browser).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#claims-form .field-error")))
    assert "Not JSON" in error.text
    assert "customAttributes" not in lookup(dev_server, "ada@example.com", owner)
    claims.clear()
    claims.send_keys('{"admin": true}')
    browser.find_element(By.CSS_SELECTOR, "#claims-form button").click()
    wait(browser).until(lambda d: lookup(dev_server, "ada@example.com", owner).get("customAttributes"))
    assert lookup(dev_server, "ada@example.com", owner)["customAttributes"] == '{"admin": true}'

    click_in_row(browser, "ada@example.com", By.XPATH, ".//button[normalize-space(.)='Details']")
    wait(browser).until(EC.element_to_be_clickable((By.ID, "send-verification"))).click()
    wait(browser).until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, "#user-detail .sent"), "sent to"))
    codes = requests.get(f"{dev_server.url}/emulator/v1/projects/{PROJECT}/oobCodes", timeout=10).json()["oobCodes"]
    assert [c["requestType"] for c in codes if c["email"] == "ada@example.com"] == ["VERIFY_EMAIL"]
    # The outbox shows it once the page is drawn again.
    browser.find_element(By.ID, "tab-accounts").click()
    wait(browser).until(EC.text_to_be_present_in_element((By.ID, "outbox"), "VERIFY_EMAIL"))
    screenshot(browser, "accounts")

    add_user(browser, "bob@example.com")
    click_in_row(browser, "bob@example.com", By.CSS_SELECTOR, "button.danger")
    browser.switch_to.alert.accept()
    wait(browser).until(lambda d: not d.find_elements(
        By.XPATH, "//table[contains(@class,'users')]//tr[td[1][normalize-space(.)='bob@example.com']]"))
    gone = requests.post(
        f"{dev_server.url}/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:lookup",
        json={"email": ["bob@example.com"]}, headers=owner, timeout=10)
    assert "users" not in gone.json(), gone.text


def test_users_page_in_pages_and_search(browser, dev_server):
    owner = {"Authorization": "Bearer owner"}
    for index in range(30):
        made = requests.post(f"{dev_server.url}/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts",
                             json={"email": f"user{index:02d}@example.com", "password": "secret-password"},
                             headers=owner, timeout=10)
        assert made.status_code == 200, made.text
    open_accounts(browser, dev_server)
    rows = browser.find_elements(By.CSS_SELECTOR, "table.users tbody tr")
    assert len(rows) == 25
    browser.find_element(By.ID, "users-next").click()
    wait(browser).until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, ".paging span"), "Page 2"))
    assert len(browser.find_elements(By.CSS_SELECTOR, "table.users tbody tr")) == 5
    assert not browser.find_element(By.ID, "users-next").is_enabled()
    search = browser.find_element(By.CSS_SELECTOR, "#search-users input")
    search.send_keys("user07@example.com")
    browser.find_element(By.CSS_SELECTOR, "#search-users button").click()
    wait(browser).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "table.users tbody tr")) == 1)
    assert "user07@example.com" in browser.find_element(By.CSS_SELECTOR, "table.users tbody").text


def test_outside_dev_mode_the_page_works_after_signing_in_with_the_admin_key(browser):
    server = Hearth(dev=False, env={"HEARTH_ADMIN_KEY": KEY})
    try:
        browser.delete_all_cookies()
        browser.get(f"{server.url}/console")
        wait(browser).until(EC.presence_of_element_located((By.ID, "admin-key"))).send_keys("wrong-key")
        browser.find_element(By.CSS_SELECTOR, "#sign-in button").click()
        wait(browser).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#sign-in #error")))
        key = browser.find_element(By.ID, "admin-key")
        key.clear()
        key.send_keys(KEY)
        browser.find_element(By.CSS_SELECTOR, "#sign-in button").click()
        wait(browser).until(EC.element_to_be_clickable((By.ID, "tab-accounts"))).click()
        wait(browser).until(EC.presence_of_element_located((By.ID, "add-user")))
        assert not browser.find_elements(By.ID, "outbox"), "the outbox is development mode's"
        add_user(browser, "cy@example.com")
        admin = {"Authorization": f"Bearer {KEY}"}
        assert lookup(server, "cy@example.com", admin)["email"] == "cy@example.com"
        browser.find_element(By.ID, "sign-out").click()
        wait(browser).until(EC.presence_of_element_located((By.ID, "admin-key")))
        assert requests.get(f"{server.url}/console/accounts.js", timeout=10).status_code == 401
    finally:
        browser.delete_all_cookies()
        server.stop()
