"""The rates ledger: registration, running claims and controls, the ledger table and the command line."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid

import pytest

from nnproofs import ledger
from nnproofs.rates import rate_check

PRELUDE = {
    "prelude/square": False,
    "prelude/control-halving": True,
    "prelude/control-dropped": True,
}


@pytest.fixture(scope="module")
def prelude_outcomes():
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BOOK_SCALE", "ci")
        patch.setenv("BOOK_DEVICE", "cpu")
        return ledger.run_claims(list(PRELUDE))


@pytest.fixture
def temporary_claim():
    """Register a claim under a fresh key and remove it from the registry afterwards."""
    keys = []

    def register(passed: bool, control: bool = False) -> str:
        key = f"test/{uuid.uuid4().hex}"
        check = rate_check("toy", [1.0, 2.0, 4.0], [1.0, 0.25, 0.0625], expected=-2.0, tolerance=0.1,
                           requirements={"toy requirement": passed})
        ledger.claim(key, chapter="book/99_test", label="thm-toy", statement="toy", control=control)(lambda: check)
        keys.append(key)
        return key

    yield register
    for key in keys:
        ledger._CLAIMS.pop(key, None)


def test_claims_lists_prelude_with_control_flags():
    found = {c.key: c for c in ledger.claims()}
    for key, control in PRELUDE.items():
        assert found[key].control is control
        assert found[key].chapter == "book/00_prelude"
        assert found[key].label == "thm-yarotsky-square"
        assert found[key].statement
        assert callable(found[key].run)
    assert [k for k in found if k.startswith("prelude/")] == list(PRELUDE)  # the book's order


def test_prelude_claim_holds_and_controls_are_rejected(prelude_outcomes):
    assert [o.claim.key for o in prelude_outcomes] == list(PRELUDE)
    for outcome in prelude_outcomes:
        assert outcome.as_asserted, outcome.check.report()
        assert outcome.check.passed is not outcome.claim.control
        assert outcome.seconds > 0
        assert outcome.check.notes["m"] == list(range(1, 11))  # BOOK_SCALE=ci sizes


@pytest.mark.parametrize(("control", "passed", "as_asserted"),
                         [(False, True, True), (False, False, False), (True, False, True), (True, True, False)])
def test_outcome_as_asserted(temporary_claim, control, passed, as_asserted):
    key = temporary_claim(passed=passed, control=control)
    (outcome,) = ledger.run_claims([key])
    assert outcome.check.passed is passed
    assert outcome.as_asserted is as_asserted


@pytest.mark.parametrize(("control", "as_asserted"), [(True, False), (False, False)])
def test_an_inconclusive_check_is_neither_a_claim_that_held_nor_a_rejected_control(control, as_asserted):
    check = rate_check("undecided", [1, 2, 4], [1.0, 0.5, 0.25], expected=-1.0, tolerance=0.1,
                       inconclusive="too few sizes above the floor")
    assert check.verdict == "INCONCLUSIVE"
    assert ledger.as_asserted(check, control) is as_asserted


@pytest.mark.parametrize("keys", [["prelude/nope"], ["prelude/square", "nope"]])
def test_run_claims_rejects_unknown_keys(keys):
    with pytest.raises(ValueError, match=r"unknown claim keys .*nope.*known keys: .*prelude/square"):
        ledger.run_claims(keys)


def test_registering_a_key_twice_raises(temporary_claim):
    key = temporary_claim(passed=True)
    before = dict(ledger._CLAIMS)
    with pytest.raises(ValueError, match=rf"claim key '{key}' is registered twice"):
        ledger.claim(key, chapter="book/99_test", label="thm-toy", statement="again")(lambda: None)
    assert ledger._CLAIMS == before


def tables(markdown: str) -> list[list[list[str]]]:
    """The body rows of every MyST pipe table in ``markdown`` (escaped pipes stay inside their cell)."""
    found = []
    for block in markdown.split("\n\n"):
        lines = block.splitlines()
        if len(lines) < 2 or not lines[0].startswith("|"):
            continue
        assert lines[1].replace("|", "").replace("-", "") == ""  # the delimiter row
        found.append([[cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]] for line in lines[2:]])
    return found


def test_markdown_table_groups_claims_and_controls_by_chapter(prelude_outcomes):
    markdown = ledger.markdown_table(prelude_outcomes)
    assert markdown.startswith("**{doc}`/book/00_prelude`**")
    claims_table, controls_table = tables(markdown)
    assert [row[0] for row in claims_table] == ["holds"]
    assert [row[0] for row in controls_table] == ["rejected", "rejected"]
    assert all(len(row) == 5 for row in claims_table + controls_table)
    assert all(row[1].endswith("({prf:ref}`thm-yarotsky-square`; *slope of sup error against 2^m*)")
               for row in claims_table + controls_table)
    assert claims_table[0][4] == "2 of 2 hold"
    assert float(claims_table[0][2]) == pytest.approx(-2.0, abs=0.02)
    assert claims_table[0][3] == "-2 ± 0.02"


def test_markdown_table_marks_broken_claims_and_escapes_pipes(temporary_claim):
    key = temporary_claim(passed=False)
    ledger._CLAIMS[key] = ledger.Claim(key, "book/99_test", "thm-toy", "|f| <= 1", ledger._CLAIMS[key].run)
    control = temporary_claim(passed=True, control=True)
    ((row,), (control_row,)) = tables(ledger.markdown_table(ledger.run_claims([key, control])))
    assert row[1] == "\\|f\\| <= 1 ({prf:ref}`thm-toy`; *log-log slope*)"
    assert row[4] == "0 of 1 hold"
    assert row[0] == "**BROKEN**"
    assert control_row[0] == "**NOT REJECTED**"


def test_command_line_sees_the_registered_claims(tmp_path):
    """``python -m nnproofs.ledger`` runs the file as __main__; it must still find every chapter's claims."""
    out = tmp_path / "results.json"
    env = {**os.environ, "BOOK_SCALE": "ci", "BOOK_DEVICE": "cpu"}
    done = subprocess.run([sys.executable, "-m", "nnproofs.ledger", "--out", str(out), "--only", "prelude/square"],
                          capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stderr
    assert [entry["key"] for entry in json.loads(out.read_text(encoding="utf-8"))["claims"]] == ["prelude/square"]


def test_main_writes_json_with_provenance(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("BOOK_SCALE", "ci")
    monkeypatch.setenv("BOOK_DEVICE", "cpu")
    out = tmp_path / "results.json"
    assert ledger.main(["--out", str(out), "--only", "prelude/square"]) == 0
    assert capsys.readouterr().out.startswith("ok     prelude/square")
    result = json.loads(out.read_text(encoding="utf-8"))
    assert set(result["provenance"]) >= {"date", "device", "torch", "nnproofs", "commit", "python", "scale"}
    assert result["provenance"]["scale"] == "ci"
    assert result["provenance"]["device"].startswith("cpu")
    (entry,) = result["claims"]
    assert entry["key"] == "prelude/square"
    assert entry["as_asserted"] is True
    assert entry["control"] is False
    assert entry["check"]["passed"] is True
    assert entry["check"]["measured"] == pytest.approx(-2.0, abs=0.02)


def test_main_returns_one_when_a_claim_is_broken(temporary_claim, monkeypatch, capsys):
    monkeypatch.setenv("BOOK_DEVICE", "cpu")
    key = temporary_claim(passed=False)
    assert ledger.main(["--only", key]) == 1
    assert capsys.readouterr().out.startswith("BROKEN")


def test_command_line_rejects_unknown_keys_with_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_info:
        ledger.main(["--only", "no/such-claim"])
    assert exit_info.value.code == 2
    assert "unknown claim keys ['no/such-claim']" in capsys.readouterr().err


@pytest.mark.parametrize("claim", ledger.claims(), ids=lambda c: c.key)
def test_every_claim_points_at_a_labelled_statement_in_its_chapter(claim):
    from pathlib import Path

    source = Path(__file__).resolve().parent.parent / f"{claim.chapter}.md"
    assert source.is_file(), f"{claim.key}: no chapter {source}"
    assert f":label: {claim.label}\n" in source.read_text(encoding="utf-8"), f"{claim.key}: no label {claim.label}"


# ------------------------------------------------------------------ records written by the chapters

def test_record_writes_the_chapter_file_and_recorded_outcomes_read_it(temporary_claim, monkeypatch, tmp_path):
    monkeypatch.setenv(ledger.LEDGER_DIR, str(tmp_path))
    monkeypatch.setattr(ledger, "_RECORDED", {})
    key = temporary_claim(passed=True)
    check = ledger._CLAIMS[key].run()
    ledger.record(key, check)
    document = json.loads((tmp_path / "99_test.json").read_text(encoding="utf-8"))
    assert document["chapter"] == "book/99_test"
    assert set(document["provenance"]) >= {"date", "device", "torch", "scale"}
    assert [entry["key"] for entry in document["claims"]] == [key]
    # Every other registered claim is missing: recorded_outcomes names them and refuses.
    with pytest.raises(ValueError, match=r"not recorded \[.*prelude/square"):
        ledger.recorded_outcomes(tmp_path)


def test_recorded_outcomes_round_trip_every_claim(monkeypatch, tmp_path, temporary_claim):
    """With every registered claim recorded, the outcomes come back in the book's order, checks intact."""
    monkeypatch.setenv(ledger.LEDGER_DIR, str(tmp_path))
    monkeypatch.setattr(ledger, "_RECORDED", {})
    broken = temporary_claim(passed=False)
    toy = ledger._CLAIMS[broken].run()
    for c in ledger.claims():
        ledger.record(c.key, toy)
    outcomes = ledger.recorded_outcomes()
    assert [o.claim.key for o in outcomes] == [c.key for c in ledger.claims()]
    assert all(o.seconds is None for o in outcomes)
    assert outcomes[0].check == toy
    assert {o.claim.key for o in outcomes if not o.as_asserted} == {c.key for c in ledger.claims() if not c.control}
    table = ledger.summary_table(outcomes)
    assert "| {doc}`/book/99_test` | 0 of 1 | 0 of 0 |" in table
    assert f"| {{doc}}`/book/00_prelude` | 0 of 1 | 2 of 2 | prelude/square |" in table


def test_record_refuses_unknown_keys_and_non_checks(temporary_claim):
    with pytest.raises(ValueError, match=r"key='no/such-claim' is not a registered claim"):
        ledger.record("no/such-claim", None)
    key = temporary_claim(passed=True)
    with pytest.raises(TypeError, match=rf"check for '{key}' must be a RateCheck, got float"):
        ledger.record(key, 1.0)


def test_recorded_outcomes_refuses_unknown_keys_and_a_missing_folder(tmp_path):
    with pytest.raises(ValueError, match=r"no ledger records in .*nowhere: execute the chapters first"):
        ledger.recorded_outcomes(tmp_path / "nowhere")
    (tmp_path / "x.json").write_text(json.dumps({"claims": [{"key": "no/such", "check": ledger.run_claims(
        ["prelude/square"])[0].check.to_dict()}]}), encoding="utf-8")
    with pytest.raises(ValueError, match=r"unknown \['no/such'\]"):
        ledger.recorded_outcomes(tmp_path)


def test_records_dir_finds_the_book_from_a_chapter_folder(monkeypatch, tmp_path):
    monkeypatch.delenv(ledger.LEDGER_DIR, raising=False)
    (tmp_path / "_toc.yml").write_text("root: intro\n", encoding="utf-8")
    (tmp_path / "book").mkdir()
    monkeypatch.chdir(tmp_path / "book")
    assert ledger.records_dir() == tmp_path / "_build" / "ledger"
    monkeypatch.setenv(ledger.LEDGER_DIR, str(tmp_path / "elsewhere"))
    assert ledger.records_dir() == tmp_path / "elsewhere"


def _recorded_keys(source: str) -> list[re.Pattern]:
    """The keys a chapter source records: literal keys, and f-string keys as patterns."""
    keys = re.findall(r'ledger\.record\(\s*(f?)"([^"]+)"', source)
    return [re.compile(re.sub(r"\\\{[^}]*\\\}", ".+", re.escape(key)) if f else re.escape(key)) for f, key in keys]


@pytest.mark.parametrize("chapter", sorted({c.chapter for c in ledger.claims()}))
def test_every_registered_claim_is_recorded_by_its_chapter(chapter):
    """The ledger page renders the chapters' records: a claim its chapter never records breaks the build."""
    from pathlib import Path

    source = (Path(__file__).resolve().parent.parent / f"{chapter}.md").read_text(encoding="utf-8")
    patterns = _recorded_keys(source)
    registered = [c.key for c in ledger.claims() if c.chapter == chapter]
    unrecorded = [key for key in registered if not any(p.fullmatch(key) for p in patterns)]
    assert not unrecorded, f"{chapter} never calls ledger.record for {unrecorded}"
    stray = [p.pattern for p in patterns if not any(p.fullmatch(key) for key in registered)]
    assert not stray, f"{chapter} records keys that it does not register: {stray}"


def test_chapter_outcomes_give_a_chapter_its_own_ledger_and_refuse_a_missing_claim(temporary_claim, monkeypatch,
                                                                                    tmp_path):
    monkeypatch.setenv(ledger.LEDGER_DIR, str(tmp_path))
    monkeypatch.setattr(ledger, "_RECORDED", {})
    key = temporary_claim(passed=True)
    with pytest.raises(ValueError, match=rf"book/99_test has not recorded \['{key}'\]"):
        ledger.chapter_outcomes("book/99_test")
    ledger.record(key, ledger._CLAIMS[key].run())
    outcomes = ledger.chapter_outcomes("book/99_test")
    assert [o.claim.key for o in outcomes] == [key] and outcomes[0].as_asserted
    table = ledger.markdown_table(outcomes, headings=False)
    assert "{doc}" not in table and table.startswith("| verdict |") and "| holds |" in table
    with pytest.raises(ValueError, match=r"chapter='book/no_such' registers no claim"):
        ledger.chapter_outcomes("book/no_such")


def test_command_line_runs_one_page_s_claims(tmp_path, monkeypatch):
    monkeypatch.setenv("BOOK_SCALE", "ci")
    monkeypatch.setenv("BOOK_DEVICE", "cpu")
    out = tmp_path / "prelude.json"
    assert ledger.main(["--chapter", "00_prelude", "--out", str(out)]) == 0
    keys = [entry["key"] for entry in json.loads(out.read_text(encoding="utf-8"))["claims"]]
    assert keys == [c.key for c in ledger.claims() if c.chapter == "book/00_prelude"]
    with pytest.raises(SystemExit):
        ledger.main(["--chapter", "no_such_page"])



def test_a_product_does_not_depend_on_where_its_operands_lie_in_memory():
    """MKL's sums depend on the operands' memory alignment unless its reproducibility is strict, which
    ``import nnproofs`` asks for (``MKL_CBWR``): without it a chapter-1 claim moved by an ulp after other
    claims ran in the same process (found by comparing a Dask run with the serial one), and here 56 of 560
    products moved. A fresh process without ``MKL_CBWR`` in its environment, as a reader's would be."""
    script = ("import nnproofs, torch\n"
              "torch.set_num_threads(1)\n"
              "g = torch.Generator().manual_seed(0)\n"
              "for n, k in ((3, 17), (3, 64), (64, 129)):\n"
              "    a, b = torch.randn(n, k, dtype=torch.float64, generator=g), torch.randn(k, 1, dtype=torch.float64, generator=g)\n"
              "    for offset in range(1, 8):\n"
              "        moved = torch.empty(n * k + offset, dtype=torch.float64)[offset:].view(n, k).copy_(a)\n"
              "        assert torch.equal(moved @ b, a @ b), (n, k, offset)\n")
    env = {key: value for key, value in os.environ.items() if key != "MKL_CBWR"}
    subprocess.run([sys.executable, "-c", script], check=True, env=env, timeout=300)
