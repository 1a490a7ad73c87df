"""Upload: record files audited and stored through the service's ingest path."""

import pandas as pd
import streamlit as st

from chaodipi.dashboard import data, ui
from chaodipi.dashboard.uploads import UploadOutcome, ingest_files

st.title("Upload records")
st.write(
    "Protobuf (`.pb`), protobuf JSON (`.json`, `.jsonl`) or text notation (`.txt`) files, "
    "one or many; the eighty and Botzone formats are read too. Every record is audited "
    "and stored with its findings; a file that cannot be read is reported and the others "
    "are still stored."
)

files = st.file_uploader("Record files", accept_multiple_files=True, key="upload-files")
if files and st.button("Audit and store", type="primary", key="upload-go"):
    with st.spinner("Auditing and storing…"):
        done = ingest_files(data.model(), [(f.name, f.getvalue()) for f in files])
    data.changed()
    st.session_state["upload-outcome"] = done

outcome: UploadOutcome | None = st.session_state.get("upload-outcome")
if outcome is not None:
    stored, duplicates = outcome.count("stored"), outcome.count("duplicate")
    rejected = outcome.count("rejected")
    message = f"{stored} stored, {duplicates} already stored, {rejected} rejected."
    if stored or duplicates:
        st.success(message)
    else:
        st.warning(message)
    for problem in outcome.problems:
        st.error(problem)
    for record in outcome.records:
        if record.status == "rejected":
            st.error(f"{record.file}: record {record.record_id or '?'} rejected: {record.error}")
    if outcome.records:
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "file": r.file,
                        "record": r.record_id,
                        "status": r.status,
                        "breaches": r.breaches,
                        "scoring errors": r.scoring_errors,
                        "warnings": r.warnings,
                        "codes": ", ".join(r.codes),
                        "replay": ui.replay_url(r.game_ids[0]) if r.game_ids else None,
                    }
                    for r in outcome.records
                ]
            ),
            hide_index=True,
            width="stretch",
            key="upload-table",
            column_config={
                "replay": st.column_config.LinkColumn("replay", display_text="open ▶"),
            },
        )
        for r in outcome.records:
            for n, game_id in enumerate(r.game_ids):
                hand = f" hand {n + 1}" if len(r.game_ids) > 1 else ""
                st.page_link(
                    ui.REPLAY_PAGE,
                    label=f"Replay {r.record_id}{hand} ({r.status})",
                    query_params={"game": game_id},
                    icon=":material/play_arrow:",
                )
    for note in outcome.notes:
        st.caption(note)
