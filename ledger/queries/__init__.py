"""Page queries, one module per screen (same stems as ledger/views/): each page or fragment asks one
function here for what its template reads."""
