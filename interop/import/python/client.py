"""The checkout in Python: pays order 5531 once with requests and urllib3's Retry (3 attempts,
a 2 s timeout on each, a 0.5 s backoff factor, POST retried on a read timeout, a 409 or a 5xx),
every attempt carrying the order's Idempotency-Key. `python client.py URL [PROXY]`."""

import sys

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

url = sys.argv[1]
session = requests.Session()
retry = Retry(total=2, read=2, connect=2, backoff_factor=0.5, allowed_methods=None,
              status_forcelist=[409, 500, 502, 503, 504], raise_on_status=False)
session.mount("http://", HTTPAdapter(max_retries=retry))
proxies = {"http": sys.argv[2]} if len(sys.argv) > 2 else None
try:
    r = session.post(url, json={"order": "5531", "amount": "$48.60"},
                     headers={"Idempotency-Key": "K7Q4"}, timeout=2, proxies=proxies)
    print(f"answered: {r.status_code} {r.text}")
except requests.RequestException as e:
    print(f"not paid: {e}")
