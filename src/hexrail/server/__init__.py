"""hexrail over HTTP: ``hexrail serve`` runs `hexrail.server.app.create_app` on uvicorn.

The worker functions (`hexrail.server.work`) hold the request logic and need only hexrail; the
application (`hexrail.server.app`) needs the ``serve`` extra: ``pip install "hexrail[serve]"``.
"""
