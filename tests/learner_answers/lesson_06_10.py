"""Notebooks 06-10: attention, masks, layer norm, the learning-rate schedule, the label-smoothing
floor and greedy decoding."""

from __future__ import annotations

import math

import numpy as np
import torch

from helpers.data import EOS_ID, PAD_ID

from . import right, variant, wrong

# the words each loop-made answer's hint must contain
WORDS = {
    "attention_scaled_by_d_v": r"no simple relation",
    "attention_multiplied_by_sqrt": r"no simple relation",
    "attention_masked_with_zero": r"the scores your weights imply .* are right",
    "attention_weights_transposed": r"output is NoneType",
    "attention_mask_added": r"the scores your weights imply .* are right",
    "attention_q_as_keys": r"raised RuntimeError",
    "attention_log_weights": r"output must equal weights @ v",
    "attention_tuple_swapped": r"output must have shape",
    "ln_gamma_beta_swapped": r"beta as the gain, and gamma as the bias",
    "ln_divides_by_variance": r"variance itself",
    "ln_no_bias": r"no bias beta",
    "ln_no_gain": r"no gain gamma",
    "ln_eps_ignored": r"no eps",
    "ln_over_first_axis": r"over the first axis",
    "noam_width_positive": r"d_model\*\*0.5",
    "noam_warmup_power_one": r"warmup_steps\*\*-1 in the warm-up",
    "noam_max_not_min": r"take the min",
    "noam_step_from_zero": r"step \+ 1",
    "noam_no_width": r"scaled by d_model\*\*-0.5",
    "noam_decay_power_one": r"step\*\*-1 in the decay",
    "floor_other_convention": r"vocab_size - 1 wrong tokens",
    "floor_in_bits": r"not bits",
    "floor_negative": r"opposite sign",
    "floor_every_token_counted": r"vocab_size wrong tokens",
    "floor_only_true_token": r"right token's term only",
    "floor_log10": r"times 0.434294",
    "floor_true_without_share": r"1 - eps \+ eps / vocab_size, not 1 - eps",
    "greedy_keeps_bos": r"more positions than expected",
    "greedy_one_step_short": r"fewer positions than expected",
    "greedy_eos_dropped": r"where they differ, yours are 0",
    "greedy_stops_at_first_eos": r"fewer positions than expected",
    "greedy_pads_with_eos": r"pad id",
    "greedy_never_stops_early": r"more positions than expected",
    "greedy_starts_from_eos": r"start from bos_id",
    "greedy_one_step_long": r"more positions than expected",
    "ln_std_squared_twice": r"no simple relation",
}


# --- check_attention(q, k, v, mask) -> (output, weights); mask True = may attend ----------------


def attention_learner(
    q,
    k,
    v,
    mask,
    *,
    scale="sqrt_dk",
    fill=float("-inf"),
    transpose=False,
    add_mask=False,
    keys_from_queries=False,
    log=False,
    order="output,weights",
):
    keys = q if keys_from_queries else k
    scores = q @ keys.transpose(-2, -1)
    d_k, d_v = q.shape[-1], v.shape[-1]
    scores = {
        "sqrt_dk": scores / math.sqrt(d_k),
        "sqrt_dv": scores / math.sqrt(d_v),
        "times": scores * math.sqrt(d_k),
    }[scale]
    if mask is not None:
        scores = scores + mask.double() if add_mask else scores.masked_fill(~mask, fill)
    weights = torch.log_softmax(scores, -1) if log else torch.softmax(scores, -1)
    if transpose:
        weights = weights.transpose(-2, -1)
    output = (weights.exp() if log else weights) @ v if not transpose else None
    return (output, weights) if order == "output,weights" else (weights, output)


for name, knobs in [
    ("attention_scaled_by_d_v", {"scale": "sqrt_dv"}),
    ("attention_multiplied_by_sqrt", {"scale": "times"}),
    ("attention_masked_with_zero", {"fill": 0.0}),
    ("attention_weights_transposed", {"transpose": True}),
    ("attention_mask_added", {"add_mask": True}),
    ("attention_q_as_keys", {"keys_from_queries": True}),
    ("attention_log_weights", {"log": True}),
    ("attention_tuple_swapped", {"order": "weights,output"}),
]:
    wrong("check_attention", WORDS[name])(variant(attention_learner, name, **knobs))


@wrong("check_attention", r"the scores your weights imply .* are right")
def attention_softmax_over_everything(q, k, v, mask):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    flat = torch.softmax(scores.flatten(-2), -1).reshape(scores.shape)
    return flat @ v, flat


@wrong("check_attention", r"for the keys each query may see .* are right; the keys the mask hides")
def attention_mask_multiplied_into_scores(q, k, v, mask):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores * mask  # hidden scores become 0, not -inf: hidden keys keep weight
    weights = torch.softmax(scores, -1)
    return weights @ v, weights


@wrong("check_attention", r"yours are zero everywhere")
def attention_uniform_weights(q, k, v, mask):
    weights = torch.ones(*q.shape[:-1], k.shape[-2], dtype=q.dtype)
    if mask is not None:
        weights = weights * mask
    weights = weights / weights.sum(-1, keepdim=True)
    return weights @ v, weights


@right("check_attention")
def attention_manual_exp(q, k, v, mask):
    scores = torch.einsum("...qd,...kd->...qk", q, k) / q.shape[-1] ** 0.5
    if mask is not None:
        scores = torch.where(mask, scores, torch.tensor(-1e9, dtype=scores.dtype))
    e = torch.exp(scores - scores.max(-1, keepdim=True).values)
    weights = e / e.sum(-1, keepdim=True)
    return weights @ v, weights


@right("check_attention")
def attention_numpy(q, k, v, mask):
    q, k, v = q.numpy(), k.numpy(), v.numpy()
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask.numpy(), scores, -np.inf)
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    return weights @ v, weights


@right("check_attention")
def attention_float32(q, k, v, mask):
    out, weights = attention_learner(q.float(), k.float(), v.float(), mask)
    return out, weights


# --- check_causal_mask(seq_len) -> bool (L, L), True where j <= i -------------------------------


@wrong("check_causal_mask", r"your key m is the expected key m - 1")
def causal_one_future(seq_len):
    return torch.ones(seq_len, seq_len, dtype=torch.bool).tril(diagonal=1)


@wrong("check_causal_mask", r"a 0/1 float mask")
def causal_float_ones(seq_len):
    return torch.ones(seq_len, seq_len).tril()  # 0/1 floats


@wrong("check_causal_mask", r"True where attention is forbidden")
def causal_additive_wrong_way(seq_len):
    return torch.zeros(seq_len, seq_len).masked_fill(
        torch.ones(seq_len, seq_len).tril().bool(), float("-inf")
    )


@wrong("check_causal_mask", r"expected a torch tensor: .*masked_fill")
def causal_int_mask(seq_len):
    return np.tril(np.ones((seq_len, seq_len), dtype=int))


@right("check_causal_mask")
def causal_int_tensor_compared(seq_len):
    return torch.tril(torch.ones(seq_len, seq_len, dtype=torch.int64)) == 1


@wrong("check_causal_mask", r"reshaped")
def causal_with_batch_axis(seq_len):
    return torch.ones(seq_len, seq_len, dtype=torch.bool).tril()[None]


@wrong("check_causal_mask", r"key 0 matches, every other key differs")
def causal_all_true(seq_len):
    return torch.ones(seq_len, seq_len, dtype=torch.bool)


@wrong("check_causal_mask", r"reverse order along the keys")
def causal_mirrored(seq_len):
    return torch.ones(seq_len, seq_len, dtype=torch.bool).tril().flip(1)


@wrong("check_causal_mask", r"expected shape \(4, 4\), got \(5, 5\)")
def causal_one_too_big(seq_len):
    return torch.ones(seq_len + 1, seq_len + 1, dtype=torch.bool).tril()


@wrong("check_causal_mask", r"key 3 matches, keys 0-2 differ")
def causal_diagonal_only(seq_len):
    return torch.eye(seq_len, dtype=torch.bool)


@wrong("check_causal_mask", r"keys 2-3 match, keys 0-1 differ")
def causal_window_of_two(seq_len):
    i = torch.arange(seq_len)[:, None]
    j = torch.arange(seq_len)[None, :]
    return (j <= i) & (j > i - 2)  # a sliding window, not the full past


@right("check_causal_mask")
def causal_comparison(seq_len):
    return torch.arange(seq_len)[None, :] <= torch.arange(seq_len)[:, None]


@wrong("check_causal_mask", r"returned a numpy.ndarray, expected a torch tensor: .*masked_fill")
def causal_numpy(seq_len):
    return np.tril(np.ones((seq_len, seq_len), dtype=bool))  # the right values, not a tensor


@right("check_causal_mask")
def causal_transposed_upper(seq_len):
    return torch.ones(seq_len, seq_len, dtype=torch.bool).triu().T


# --- check_padding_mask(tokens, pad_id) -> bool (B, 1, 1, L), True for real tokens -------------


@wrong("check_padding_mask", r"reshaped")
def padding_no_singleton_axes(tokens, pad_id):
    return tokens != pad_id


@wrong("check_padding_mask", r"transposed")
def padding_wrong_axes(tokens, pad_id):
    return (tokens != pad_id)[:, None, :, None]


@wrong("check_padding_mask", r"reshaped")
def padding_one_axis(tokens, pad_id):
    return (tokens != pad_id).unsqueeze(1)


@wrong("check_padding_mask", r"keys 2-3 match, keys 0-1 differ")
def padding_greater_than(tokens, pad_id):
    return (tokens > pad_id)[:, None, None, :]


@wrong("check_padding_mask", r"a 0/1 float mask")
def padding_float(tokens, pad_id):
    return (tokens != pad_id).float()[:, None, None, :]


@wrong("check_padding_mask", r"your key m is the expected key m \+ 2")
def padding_first_token_only(tokens, pad_id):
    keep = tokens != pad_id
    keep[:, 0] = True  # "the first token is never padding"
    keep[:, 1:] = keep[:, 1:] & (tokens[:, :-1] != pad_id)
    return keep[:, None, None, :]


@wrong("check_padding_mask", r"reverse order along the keys")
def padding_reversed(tokens, pad_id):
    return (tokens != pad_id).flip(-1)[:, None, None, :]


@wrong("check_padding_mask", r"expected shape \(2, 1, 1, 5\), got \(5, 1, 1, 2\)")
def padding_transposed_batch(tokens, pad_id):
    return (tokens != pad_id).T[:, None, None, :]


@wrong("check_padding_mask", r"keys 0-1 and 3 match, keys 2 and 4 differ")
def padding_counts_from_end(tokens, pad_id):
    lengths = (tokens != pad_id).sum(-1, keepdim=True)
    keep = torch.arange(tokens.shape[1])[None, :] < lengths - 1  # one real token dropped
    return keep[:, None, None, :]


@wrong("check_padding_mask", r"keys 0-2 match, keys 3-4 differ")
def padding_all_true(tokens, pad_id):
    return torch.ones_like(tokens, dtype=torch.bool)[:, None, None, :]


@right("check_padding_mask")
def padding_ne(tokens, pad_id):
    return tokens.ne(pad_id).view(tokens.shape[0], 1, 1, tokens.shape[1])


@wrong("check_padding_mask", r"returned a numpy.ndarray, expected a torch tensor")
def padding_numpy(tokens, pad_id):
    return (tokens.numpy() != pad_id)[:, np.newaxis, np.newaxis, :]  # right values, NumPy


@right("check_padding_mask")
def padding_numpy_back_to_torch(tokens, pad_id):
    return torch.from_numpy((tokens.numpy() != pad_id)[:, np.newaxis, np.newaxis, :])


@right("check_padding_mask")
def padding_not_equal(tokens, pad_id):
    return ~(tokens == pad_id).unsqueeze(1).unsqueeze(2)


# --- check_layer_norm(x, gamma, beta, eps) ------------------------------------------------------


def ln_learner(
    x,
    gamma,
    beta,
    eps,
    *,
    dim=-1,
    var_of=None,
    eps_used=True,
    swap=False,
    sqrt=True,
    gain=True,
    bias=True,
):
    mean = x.mean(dim=dim, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=dim, keepdim=True) if var_of is None else var_of(x, dim)
    denominator = var + (eps if eps_used else 0.0)
    normed = (x - mean) / (torch.sqrt(denominator) if sqrt else denominator)
    g, b = (beta, gamma) if swap else (gamma, beta)
    return normed * (g if gain else 1) + (b if bias else 0)


for name, knobs in [
    ("ln_gamma_beta_swapped", {"swap": True}),
    ("ln_divides_by_variance", {"sqrt": False}),
    ("ln_no_bias", {"bias": False}),
    ("ln_no_gain", {"gain": False}),
    ("ln_eps_ignored", {"eps_used": False}),
    ("ln_over_first_axis", {"dim": 0}),
    (
        "ln_std_squared_twice",
        {"var_of": lambda x, dim: x.var(dim=dim, keepdim=True, unbiased=False) ** 2},
    ),
]:
    wrong("check_layer_norm", WORDS[name])(variant(ln_learner, name, **knobs))


@wrong("check_layer_norm", r"whole tensor")
def ln_mean_over_everything(x, gamma, beta, eps):
    mean, var = x.mean(), x.var(unbiased=False)
    return gamma * (x - mean) / torch.sqrt(var + eps) + beta


@wrong("check_layer_norm", r"mean not subtracted")
def ln_not_centred(x, gamma, beta, eps):
    var = x.var(dim=-1, keepdim=True, unbiased=False)
    return gamma * x / torch.sqrt(var + eps) + beta


@wrong("check_layer_norm", r"RMSNorm")
def ln_rms_norm(x, gamma, beta, eps):
    return gamma * x / torch.sqrt((x**2).mean(-1, keepdim=True) + eps) + beta


@right("check_layer_norm")
def ln_functional(x, gamma, beta, eps):
    return torch.nn.functional.layer_norm(x, x.shape[-1:], gamma, beta, eps)


@right("check_layer_norm")
def ln_numpy(x, gamma, beta, eps):
    x = x.numpy()
    mu = x.mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(x.var(-1, keepdims=True) + eps) * gamma.numpy() + beta.numpy()


@right("check_layer_norm")
def ln_float32(x, gamma, beta, eps):
    return ln_learner(x.float(), gamma.float(), beta.float(), eps)


# --- check_noam_lr(step, d_model, warmup_steps) --------------------------------------------------


def noam_learner(step, d_model, warmup, *, width=-0.5, warm=-1.5, pick=min, offset=0, decay=-0.5):
    s = step + offset
    return d_model**width * pick(s**decay, s * warmup**warm)


for name, knobs in [
    ("noam_width_positive", {"width": 0.5}),
    ("noam_warmup_power_one", {"warm": -1.0}),
    ("noam_max_not_min", {"pick": max}),
    ("noam_step_from_zero", {"offset": 1}),
    ("noam_no_width", {"width": 0.0}),
    ("noam_decay_power_one", {"decay": -1.0}),
]:
    wrong("check_noam_lr", WORDS[name])(variant(noam_learner, name, **knobs))


@wrong("check_noam_lr", r"take the min")
def noam_only_warmup(step, d_model, warmup):
    return d_model**-0.5 * step * warmup**-1.5


@wrong("check_noam_lr", r"take the min")
def noam_only_decay(step, d_model, warmup):
    return d_model**-0.5 * step**-0.5


@wrong("check_noam_lr", r"warmup_steps\*\*-2")
def noam_sqrt_swapped(step, d_model, warmup):
    return math.sqrt(d_model) ** -1 * min(1 / math.sqrt(step), step / warmup**2)


@wrong("check_noam_lr", r"d_model\*\*-1")
def noam_divided_by_d_model(step, d_model, warmup):
    return min(step**-0.5, step * warmup**-1.5) / d_model


@wrong(
    "check_noam_lr",
    r"warmup_steps\*\*-1 in the warm-up branch .*, and the branch chosen by step < warmup_steps",
)
def noam_warmup_to_the_wrong_peak(step, d_model, warmup):
    if step < warmup:  # a line from 0 to d_model**-0.5: the peak misses warmup**-0.5
        return step / warmup / math.sqrt(d_model)
    return 1 / math.sqrt(d_model * step)


@right("check_noam_lr")
def noam_if_else(step, d_model, warmup):
    if step < warmup:
        return step * warmup**-1.5 / math.sqrt(d_model)
    return 1 / math.sqrt(d_model * step)


@right("check_noam_lr")
def noam_numpy(step, d_model, warmup):
    return float(np.float64(d_model) ** -0.5 * np.minimum(step**-0.5, step * warmup**-1.5))


@right("check_noam_lr")
def noam_torch(step, d_model, warmup):
    s = torch.tensor(float(step), dtype=torch.float64)
    return d_model**-0.5 * torch.minimum(s.rsqrt(), s * warmup**-1.5)


# --- check_smoothing_floor(vocab_size, eps) -> entropy of the smoothed target, in nats -----------


def floor_learner(vocab_size, eps, *, others=None, true_p=None, count=None, log=math.log, sign=1.0):
    p_true = 1 - eps + eps / vocab_size if true_p is None else true_p(vocab_size, eps)
    p_other = eps / vocab_size if others is None else others(vocab_size, eps)
    n_other = vocab_size - 1 if count is None else count(vocab_size)
    terms = p_true * log(p_true) + n_other * (p_other * log(p_other) if p_other > 0 else 0.0)
    return -sign * terms


for name, knobs in [
    ("floor_other_convention", {"true_p": lambda v, e: 1 - e, "others": lambda v, e: e / (v - 1)}),
    ("floor_in_bits", {"log": math.log2}),
    ("floor_negative", {"sign": -1.0}),
    ("floor_every_token_counted", {"count": lambda v: v}),
    ("floor_only_true_token", {"count": lambda v: 0}),
    ("floor_log10", {"log": math.log10}),
    ("floor_true_without_share", {"true_p": lambda v, e: 1 - e}),
]:
    wrong("check_smoothing_floor", WORDS[name])(variant(floor_learner, name, **knobs))


@wrong("check_smoothing_floor", r"no simple relation")
def floor_uniform_entropy(vocab_size, eps):
    return math.log(vocab_size)


@wrong("check_smoothing_floor", r"no simple relation")
def floor_eps_times_log(vocab_size, eps):
    return eps * math.log(vocab_size)


@wrong("check_smoothing_floor", r"-log q\(y\)")
def floor_cross_entropy_of_true(vocab_size, eps):
    return -math.log(1 - eps + eps / vocab_size)


@right("check_smoothing_floor")
def floor_torch_distribution(vocab_size, eps):
    p = torch.full((vocab_size,), eps / vocab_size, dtype=torch.float64)
    p[0] += 1 - eps
    return torch.distributions.Categorical(probs=p).entropy()


@right("check_smoothing_floor")
def floor_numpy(vocab_size, eps):
    p = np.full(vocab_size, eps / vocab_size)
    p[3 % vocab_size] += 1 - eps
    return -np.sum(p * np.log(p))


@right("check_smoothing_floor")
def floor_xlogy(vocab_size, eps):
    a, b = 1 - eps + eps / vocab_size, eps / vocab_size
    return -(
        torch.special.xlogy(torch.tensor(a), torch.tensor(a))
        + (vocab_size - 1) * torch.special.xlogy(torch.tensor(b), torch.tensor(b))
    ).double()


# --- check_greedy_decode(model, src, max_len, bos_id, eos_id) ------------------------------------


def greedy_learner(
    model,
    src,
    max_len,
    bos_id,
    eos_id,
    *,
    keep_bos=False,
    steps=0,
    drop_eos=False,
    stop_any=False,
    pad_with=None,
    no_stop=False,
    start=None,
    pick=-1,
):
    memory = model.encode(src)
    ys = torch.full((len(src), 1), bos_id if start is None else start, dtype=torch.long)
    finished = torch.zeros(len(src), dtype=torch.bool)
    for _ in range(max_len + steps):
        token = model.decode(ys, memory)[:, pick].argmax(dim=-1)
        token = token.masked_fill(finished, PAD_ID if pad_with is None else pad_with)
        finished |= token == eos_id
        if drop_eos:
            token = token.masked_fill(token == eos_id, PAD_ID)
        ys = torch.cat([ys, token[:, None]], dim=1)
        if not no_stop and (finished.any() if stop_any else finished.all()):
            break
    return ys if keep_bos else ys[:, 1:]


for name, knobs in [
    ("greedy_keeps_bos", {"keep_bos": True}),
    ("greedy_one_step_short", {"steps": -1}),
    ("greedy_eos_dropped", {"drop_eos": True}),
    ("greedy_stops_at_first_eos", {"stop_any": True}),
    ("greedy_pads_with_eos", {"pad_with": EOS_ID}),
    ("greedy_never_stops_early", {"no_stop": True}),
    ("greedy_starts_from_eos", {"start": EOS_ID}),
    ("greedy_one_step_long", {"steps": 1}),
]:
    wrong("check_greedy_decode", WORDS[name])(variant(greedy_learner, name, **knobs))


@wrong("check_greedy_decode", r"positions 0-1 match, position 2 differs")
def greedy_copies_source(model, src, max_len, bos_id, eos_id):
    out = torch.full((len(src), max_len), PAD_ID)
    for b, row in enumerate(src):
        real = row[row != PAD_ID].tolist()[: max_len - 1] + [eos_id]
        out[b, : len(real)] = torch.tensor(real[:max_len])
    return out[:, : max(len(r[r != PAD_ID]) + 1 for r in src)][:, :max_len]


@wrong("check_greedy_decode", r"pad id")
def greedy_argmax_over_positions(model, src, max_len, bos_id, eos_id):
    memory = model.encode(src)
    ys = torch.full((len(src), 1), bos_id)
    for _ in range(max_len):
        logits = model.decode(ys, memory)
        token = logits[:, -1:].argmax(dim=-1)[:, 0] * 0 + logits.argmax(dim=-1)[:, -1]
        ys = torch.cat([ys, token[:, None]], dim=1)
        if (ys == eos_id).any(1).all():
            break
    return ys[:, 1:]


@right("check_greedy_decode")
def greedy_with_forward(model, src, max_len, bos_id, eos_id):
    ys = torch.tensor([[bos_id]] * len(src))
    done = torch.zeros(len(src), dtype=torch.bool)
    while ys.shape[1] <= max_len and not done.all():
        nxt = model(src, ys)[:, -1].argmax(-1)
        nxt[done] = PAD_ID
        done = done | (nxt == eos_id)
        ys = torch.cat([ys, nxt[:, None]], 1)
    return ys[:, 1:]


@right("check_greedy_decode")
def greedy_lists(model, src, max_len, bos_id, eos_id):
    return greedy_learner(model, src, max_len, bos_id, eos_id).tolist()


@right("check_greedy_decode")
def greedy_numpy_out(model, src, max_len, bos_id, eos_id):
    return greedy_learner(model, src, max_len, bos_id, eos_id).numpy()
