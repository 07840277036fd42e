"""A finished (or reporting) search's answer, written as serialized protobuf: the
Recommendation straight from the cached serialized actions (``wire.recommendation_bytes``),
an analysis's fields added to it, and the framing of a stream's progress reports and a
batch's tagged results.  Runs in the worker thread that ran the search's last slice.
"""
from __future__ import annotations

import random

from fagin.search import analysis as analysis_mod
from fagin.search import levels
from fagin.server import wire
from fagin.server.codec import action_encoder, encode_action
from fagin.server.request import DeadlineTooShort, SearchJob
from fagin.v1 import fagin_pb2


STOP_REASONS = {
    "iterations": fagin_pb2.STOP_REASON_ITERATIONS,
    "time": fagin_pb2.STOP_REASON_TIME,
    "cancelled": fagin_pb2.STOP_REASON_CANCELLED,
    "decided": fagin_pb2.STOP_REASON_DECIDED,
}


class TooFewIterations(DeadlineTooShort):
    """The search ran out of time before the request's min_iterations: no answer."""


def check_min_iterations(job: SearchJob, reason: str):
    """Raises TooFewIterations if the search did fewer than the request's min_iterations
    (a cancelled call has no answer to check; a decided one has the whole budget's)."""
    done = job.iterations_done
    if reason not in ("cancelled", "decided") and done < job.min_iterations:
        raise TooFewIterations(
            f"the search did {done} iterations before its time ran out (the call's deadline, "
            f"waits for a worker included), fewer than search.min_iterations {job.min_iterations}; "
            f"the server is busy or the deadline too short")


def _chosen(job: SearchJob, reason: str):
    """(the search's SearchResult so far, the action to recommend)."""
    result = job.searcher.result(reason)
    action = result.action
    if job.analysis is not None:
        return result, action                 # analysis_bytes chooses by its own rule
    if job.temperature:
        # Drawn from the policy, reproducibly: the seed and the iterations done fix the draw.
        rng = random.Random(job.settings.seed * 1_000_003 + job.iterations_done)
        action = levels.choose(result.stats, job.temperature, rng, action)
    return result, action


def _notes(job: SearchJob, reason: str):
    if reason == "time" and job.time_note_if_hit:
        return job.notes + [job.time_note_if_hit]
    return job.notes


def recommendation_bytes(job: SearchJob, reason: str) -> bytes:
    """The Recommendation message for the search's current statistics, serialized: written
    straight from the cached serialized actions, without building Python messages (built as
    messages, the answer was fagin's costliest step of a small call)."""
    result, action = _chosen(job, reason)
    encoded = action_encoder(job.game, False, job.state.options(), state=job.state)
    if job.analysis is not None:
        written = analysis_bytes(job, reason, result, encoded)
    else:
        written = wire.recommendation_bytes(
            encoded(action), [(encoded(s.action), s.visits, s.mean_value, s.policy) for s in result.stats],
            job.iterations_done, result.nodes, job.elapsed_done_ms, STOP_REASONS[reason], job.seat,
            job.settings.SerializeToString(), _notes(job, reason))
    if job.session_report is not None:
        # A field may follow the others in a message's bytes: Recommendation.session (13).
        written += wire.length_delimited(13, job.session_report.SerializeToString())
    return written


def _pv_action(job, move):
    """A principal variation's move as an Action: its id, typed form and label (the label
    of the determinization the variation follows: it may name a card there)."""
    msg = fagin_pb2.Action()
    msg.CopyFrom(encode_action(job.game, move.action, move.seat < 0, job.state.options()))
    msg.label = move.label
    return msg


def analysis_bytes(job: SearchJob, reason: str, result, encoded) -> bytes:
    """The Recommendation of an analysis request, serialized: the plain answer's fields,
    then the analysis of the search so far (fagin.search.analysis)."""
    a = job.analysis
    report = analysis_mod.analyse(job.searcher.parts, job.state, job.seat, candidates=a.candidates,
                                  pv_depth=a.pv_depth, beliefs=a.beliefs, final_move=a.final_move,
                                  seed=job.settings.seed, labels={s.action: s.label for s in result.stats},
                                  own_best=result.action)
    rec = fagin_pb2.Recommendation.FromString(wire.recommendation_bytes(
        encoded(report.best), [(encoded(s.action), s.visits, s.mean_value, s.policy) for s in result.stats],
        job.iterations_done, result.nodes, job.elapsed_done_ms, STOP_REASONS[reason], job.seat,
        job.settings.SerializeToString(), _notes(job, reason)))
    by_action = report.by_action()
    for stat in rec.actions:
        x = by_action.get(stat.action.id)
        if x is None or not x.rank:
            continue
        out = stat.analysis
        out.rank = x.rank
        if x.win_probability is not None:
            out.win_probability = x.win_probability
            out.seat_win_probabilities.extend(x.win_probabilities)
        out.win_probability_error = x.win_error
        out.win_probability_lcb = x.win_lcb
        if x.margin is not None:
            out.score_margin = x.margin
            out.score_margin_error = x.margin_error
            out.score_margin_lcb = x.margin_lcb
        out.prior = x.prior
        out.close_to_best = x.close_to_best
        for move in x.pv:
            out.pv.add(action=_pv_action(job, move), seat=move.seat, visits=move.visits)
    rec.analysis.CopyFrom(a)
    rec.too_close_to_call = report.too_close_to_call
    rec.root.visits = report.visits
    rec.root.values.extend(report.values)
    rec.root.win_probabilities.extend(report.win_probabilities)
    rec.root.score_margins.extend(report.margins)
    if a.beliefs:
        rec.beliefs.SetInParent()
        rec.beliefs.determinizations = report.determinizations
        for place in report.beliefs:
            msg = rec.beliefs.places.add(place=place.place)
            if place.seat is not None:
                msg.seat = place.seat
            for item in place.items:
                msg.items.add(item=item.item, share=item.share, copies=item.copies)
    return rec.SerializeToString()


def recommendation(job: SearchJob, reason: str) -> bytes:
    """A finished search's Recommendation, serialized, or TooFewIterations (runs in a
    search thread, or on the loop after an inline search)."""
    check_min_iterations(job, reason)
    return recommendation_bytes(job, reason)


def batch_result(job: SearchJob, request_id: str, reason: str) -> bytes:
    """A finished search's BatchRecommendResponse, serialized (see ``recommendation``)."""
    rec = recommendation(job, reason)
    head = wire.length_delimited(1, request_id.encode("utf-8")) if request_id else b""
    return head + wire.length_delimited(2, rec)


def batch_error(request_id: str, code, message: str, retry_ms: int = 0):
    """A BatchRecommendResponse telling of one request's error (the batch goes on)."""
    return fagin_pb2.BatchRecommendResponse(request_id=request_id, error=fagin_pb2.Error(
        code=code.value[0], message=message, retry_pushback_ms=retry_ms))


def progress(job: SearchJob, reason: str, final=False) -> bytes:
    """A serialized RecommendProgress: the recommendation so far (field 1), and ``final`` (2)."""
    report = wire.length_delimited(1, recommendation_bytes(job, reason))
    return report + b"\x10\x01" if final else report
