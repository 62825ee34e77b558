# jantaku's wire protocol: messages.py (the one table), codec.py (frames), link.py (the
# reliable link) run on MicroPython and CPython; models.py (pydantic) is host-side.
# SPEC.md describes every byte.
