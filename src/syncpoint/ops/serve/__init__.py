"""``syncpoint serve``: a status page of the channel and ``/metrics`` for Prometheus.

- ``poller.py``: reads the status document every few seconds in a thread, keeps the last
  hour of backlog and lag, and feeds the metrics;
- ``app.py``: the web app (Starlette, served by uvicorn): the page, its JSON, ``/metrics``;
- ``page.html``: the page itself, which draws the channel and the plots from that JSON.
"""
