"""The Streamlit dashboard: step through audited replays and see players' statistics.

``chaodipi dashboard`` runs ``dashboard/app.py``; ``chaodipi up`` runs it next to the service.
Pages live in ``dashboard/app_pages``; ``cards`` renders card faces, ``stepping`` is the replay
model, ``data`` the cached reads through the service's read model
(``chaodipi.service.readmodel``), ``uploads`` stores uploaded records through the service's
ingest path. The dashboard neither queries the database nor runs the auditor itself.
"""
