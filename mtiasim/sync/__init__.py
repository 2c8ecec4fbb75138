"""Programs that cooperate: atomics performed where their memory lives (:mod:`.atomics`), and the scheduling
rules that make programs waiting on each other advance together in simulated time, with the watchdog that
stops a run no program of which can make progress (:mod:`.progress`)."""
