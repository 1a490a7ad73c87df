"""Upload: record files audited and stored through the service's ingest path, for the tenant
the session signed in as."""

import pandas as pd
import streamlit as st

from chaodipi.dashboard import data, ui
from chaodipi.dashboard.i18n import t
from chaodipi.dashboard.uploads import UploadOutcome, formats_text, ingest_files

STATUS_KEYS = {
    "stored": "upload.status_stored",
    "duplicate": "upload.status_duplicate",
    "rejected": "upload.status_rejected",
    "conflict": "upload.status_conflict",
}
NOT_STORED_KEYS = {"rejected": "upload.rejected", "conflict": "upload.conflict"}

lang = ui.lang()
st.title(t(lang, "upload.title"))
st.write(t(lang, "upload.about", formats=formats_text(lang)))

files = st.file_uploader(t(lang, "upload.files"), accept_multiple_files=True, key="upload-files")
if files and st.button(t(lang, "upload.go"), type="primary", key="upload-go"):
    with st.spinner(t(lang, "upload.working")):
        done = ingest_files(data.model(), [(f.name, f.getvalue()) for f in files])
    data.changed()
    st.session_state["upload-outcome"] = done

outcome: UploadOutcome | None = st.session_state.get("upload-outcome")
if outcome is not None:
    stored, duplicates = outcome.count("stored"), outcome.count("duplicate")
    rejected, conflicts = outcome.count("rejected"), outcome.count("conflict")
    message = t(lang, "upload.summary", stored=stored, duplicates=duplicates, rejected=rejected)
    if conflicts:
        message += " " + t(lang, "upload.conflicts", n=conflicts)
    if stored or duplicates:
        st.success(message)
    else:
        st.warning(message)
    for problem in outcome.problems:
        st.error(t(lang, "upload.problem", problem=problem))
    for record in outcome.records:
        if record.status in NOT_STORED_KEYS:
            st.error(
                t(
                    lang,
                    NOT_STORED_KEYS[record.status],
                    file=record.file,
                    record=record.record_id or "?",
                    error=record.error,
                )
            )
    if outcome.records:
        status = {k: t(lang, key) for k, key in STATUS_KEYS.items()}
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "file": r.file,
                        "record": r.record_id,
                        "status": status.get(r.status, r.status),
                        "breaches": r.breaches,
                        "scoring errors": r.scoring_errors,
                        "warnings": r.warnings,
                        "codes": ", ".join(r.codes),
                        "replay": ui.replay_url(lang, r.game_ids[0]) if r.game_ids else "",
                    }
                    for r in outcome.records
                ]
            ),
            hide_index=True,
            width="stretch",
            key="upload-table",
            column_config={
                "file": st.column_config.TextColumn(t(lang, "upload.col_file")),
                "record": st.column_config.TextColumn(t(lang, "upload.col_record")),
                "status": st.column_config.TextColumn(t(lang, "upload.col_status")),
                "breaches": st.column_config.NumberColumn(t(lang, "severity.breaches")),
                "scoring errors": st.column_config.NumberColumn(t(lang, "severity.scoring_errors")),
                "warnings": st.column_config.NumberColumn(t(lang, "severity.warnings")),
                "codes": st.column_config.TextColumn(t(lang, "upload.col_codes")),
                "replay": st.column_config.LinkColumn(
                    t(lang, "upload.col_replay"), display_text=t(lang, "common.open")
                ),
            },
        )
        for r in outcome.records:
            for n, game_id in enumerate(r.game_ids):
                hand = f" · {t(lang, 'common.hand_n', n=n + 1)}" if len(r.game_ids) > 1 else ""
                st.page_link(
                    ui.REPLAY_PAGE,
                    label=t(
                        lang,
                        "upload.replay_link",
                        record=r.record_id,
                        hand=hand,
                        status=status.get(r.status, r.status),
                    ),
                    query_params=ui.params(lang, game=game_id),
                    icon=":material/play_arrow:",
                )
    for note in outcome.notes:
        st.caption(t(lang, "upload.note", note=note))
