"""`make lab` works: JupyterLab starts, opens a chapter's MyST source as a notebook and runs its cells.

The server runs headless on a free port, as the README's `make lab` starts it. Through its REST API the
test asks for `book/00_prelude.md` as a notebook (jupytext's contents manager), starts a kernel, and
executes the chapter's first code cell over the kernel's websocket (the Jupyter messaging protocol).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab():
    """A JupyterLab server on the repository, as `make lab` starts it; yields its base URL."""
    port = _free_port()
    command = [str(JUPYTER), "lab", f"--ServerApp.root_dir={ROOT}", "--no-browser", "--allow-root",
               f"--ServerApp.port={port}", "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={TOKEN}"]
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(ROOT / "_build" / "lab-runtime")}
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                _get(url, "/api/status")
                break
            except OSError:
                if server.poll() is not None:
                    raise AssertionError(f"jupyter lab exited: {server.stdout.read()}") from None
                time.sleep(0.5)
        else:
            raise AssertionError("jupyter lab did not answer within 60 s")
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


def _get(url: str, path: str, method: str = "GET", body: dict | None = None) -> dict:
    request = urllib.request.Request(f"{url}{path}", method=method, data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": f"token {TOKEN}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
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
        printed, status = [], None
        while status is None:
            message = json.loads(await connection.read_message())
            if message.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            if message["msg_type"] == "stream":
                printed.append(message["content"]["text"])
            if message["msg_type"] == "execute_reply":
                status = message["content"]["status"]
        connection.close()
        return status, "".join(printed)

    try:
        status, _ = IOLoop.current().run_sync(lambda: run(first), timeout=120)
        assert status == "ok"
        status, printed = IOLoop.current().run_sync(lambda: run("import nnproofs, ipywidgets; print(ipywidgets.__version__)"),
                                                    timeout=60)
        assert status == "ok" and printed.strip()
    finally:
        _get(lab, f"/api/kernels/{kernel['id']}", method="DELETE")
