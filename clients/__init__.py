"""Clients of the fagin service: :class:`FaginClient`, :class:`AsyncFaginClient`, and the ``fagin`` command."""
from fagin.clients.client import (DEFAULT_TARGET, AsyncFaginClient, FaginClient, recommend_request,
                                  search_settings)

__all__ = ["DEFAULT_TARGET", "AsyncFaginClient", "FaginClient", "recommend_request", "search_settings"]
