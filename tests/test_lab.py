"""`make lab` works: JupyterLab starts, opens a chapter's MyST source as a notebook and runs its cells.

The server runs headless on a free port, as the README's `make lab` starts it. Through its REST API the
test asks for `book/00_prelude.md` as a notebook (jupytext's contents manager), starts a kernel, and
executes the chapter's first code cell over the kernel's websocket (the Jupyter messaging protocol).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
JUPYTER = Path(sys.executable).parent / "jupyter"
TOKEN = uuid.uuid4().hex

pytestmark = pytest.mark.skipif(shutil.which("jupyter-lab", path=str(JUPYTER.parent)) is None,
                                reason="JupyterLab is not installed (requirements.txt pins it)")


# Generous limits: they only stop a test that can no longer succeed (a server or kernel that died); a loaded
# machine (both cores busy) must never reach them.
STARTUP_LIMIT = 600.0  # seconds for the server to announce itself
REQUEST_LIMIT = 300.0  # seconds for one REST request


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server on the repository, as `make lab` starts it; yields its base URL.

    The operating system picks a free port (``--ServerApp.port=0``): no port is chosen here and then found
    taken. The server announces its address in ``jpserver-<pid>.json`` in its own runtime folder, and the
    test waits for that file and for ``/api/status``, as long as the process lives.
    """
    runtime = tmp_path_factory.mktemp("lab-runtime")
    command = [str(JUPYTER), "lab", f"--ServerApp.root_dir={ROOT}", "--no-browser", "--allow-root",
               "--ServerApp.port=0", "--ServerApp.port_retries=0", "--ServerApp.ip=127.0.0.1",
               f"--IdentityProvider.token={TOKEN}"]
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(runtime)}
    log = (runtime / "server.log").open("w")
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, text=True)
    info = runtime / f"jpserver-{server.pid}.json"
    try:
        deadline = time.monotonic() + STARTUP_LIMIT
        while True:
            if server.poll() is not None:
                raise AssertionError(f"jupyter lab exited: {(runtime / 'server.log').read_text()}")
            if info.exists():
                try:
                    url = f"http://127.0.0.1:{json.loads(info.read_text())['port']}"
                    _get(url, "/api/status")
                    break
                except (OSError, ValueError, KeyError):  # the file half written, or the server not yet serving
                    pass
            if time.monotonic() > deadline:
                raise AssertionError(f"jupyter lab did not announce itself within {STARTUP_LIMIT:.0f} s")
            time.sleep(0.2)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def _get(url: str, path: str, method: str = "GET", body: dict | None = None) -> dict:
    request = urllib.request.Request(f"{url}{path}", method=method, data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": f"token {TOKEN}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=REQUEST_LIMIT) as response:
        return json.loads(response.read() or b"{}")


def test_lab_serves_the_lab_page_and_the_widget_manager(lab):
    labextensions = {e["name"] for e in _get(lab, "/lab/api/extensions")}
    assert "jupyter-widgets-jupyterlab-manager" in labextensions  # ipywidgets' explorers render in Lab
    assert "jupyterlab-jupytext" in labextensions  # "Open With → Notebook" for book/*.md


def test_a_chapter_source_opens_as_a_notebook(lab):
    model = _get(lab, "/api/contents/book/00_prelude.md?type=notebook&content=1")
    assert model["type"] == "notebook"
    cells = model["content"]["cells"]
    code = [c for c in cells if c["cell_type"] == "code"]
    assert len(code) >= 5 and any("check_yarotsky_square" in c["source"] for c in code)


def test_a_chapter_cell_executes_through_a_kernel(lab):
    from tornado.ioloop import IOLoop
    from tornado.websocket import websocket_connect

    model = _get(lab, "/api/contents/book/00_prelude.md?type=notebook&content=1")
    first = next(c["source"] for c in model["content"]["cells"] if c["cell_type"] == "code")
    kernel = _get(lab, "/api/kernels", method="POST", body={"name": "python3", "path": "book/00_prelude.md"})

    async def run(source: str) -> tuple[str, str]:
        ws_url = lab.replace("http", "ws") + f"/api/kernels/{kernel['id']}/channels?token={TOKEN}"
        connection = await websocket_connect(ws_url)
        msg_id = uuid.uuid4().hex
        await connection.write_message(json.dumps({
            "header": {"msg_id": msg_id, "msg_type": "execute_request", "username": "test", "session": uuid.uuid4().hex,
                       "version": "5.3", "date": ""},
            "parent_header": {}, "metadata": {}, "channel": "shell",
            "content": {"code": source, "silent": False, "store_history": True, "user_expressions": {},
                        "allow_stdin": False, "stop_on_error": True},
        }))
        # The reply (shell channel) and the output (iopub) travel separately, and the reply may come first:
        # the output is complete only at the iopub `status: idle` whose parent is this request.
        printed, status, idle = [], None, False
        while status is None or not idle:
            raw = await connection.read_message()
            if raw is None:
                raise AssertionError("the kernel's websocket closed before the request was complete")
            message = json.loads(raw)
            if message.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind = message["msg_type"]
            if kind == "stream":
                printed.append(message["content"]["text"])
            elif kind == "execute_reply":
                status = message["content"]["status"]
            elif kind == "status" and message["content"]["execution_state"] == "idle":
                idle = True
        connection.close()
        return status, "".join(printed)

    try:
        status, _ = IOLoop.current().run_sync(lambda: run(first), timeout=REQUEST_LIMIT)
        assert status == "ok"
        status, printed = IOLoop.current().run_sync(lambda: run("import nnproofs, ipywidgets; print(ipywidgets.__version__)"),
                                                    timeout=REQUEST_LIMIT)
        assert status == "ok" and printed.strip()
    finally:
        _get(lab, f"/api/kernels/{kernel['id']}", method="DELETE")
