"""The service's storage: models (:mod:`.models`), the engine and sessions (:mod:`.engine`), and
the queries and writes everything else uses (:mod:`.attempts`, :mod:`.people`)."""
