"""The search agent's three templates, each compared with its authors' code: Search-R1
(PeterGriffinJin/Search-R1), R1-Searcher (RUCAIBox/R1-Searcher) and AutoRefine (syr-cn/AutoRefine,
whose ``search_r1/llm_agent/generation.py`` is Search-R1's but for the documents' tag)."""

from __future__ import annotations

from hopkit.methods.fidelity import Difference, FidelityTable, Reference

_SEARCH_R1 = "a14dc3a4ffc6fe88c1e95038d9738e21ba3f7a06"
_R1_SEARCHER = "631167cbb3c2464f805730e3e364a690f5b136d4"
_AUTOREFINE = "83637883d98801dab1bd2dc36b9186a25efdaa98"

_GEN = "search_r1/llm_agent/generation.py"


def _verl_family(tag: str, obs_tokens: int, prompt_tokens: int, response_tokens: int, turns: int,
                 instruction_file: str, settings_file: str, answer_reading: str,
                 saved_cells: str) -> tuple[Difference, ...]:
    """The rows Search-R1 and AutoRefine share (the same generation.py; ``tag`` names the documents' tag);
    ``saved_cells`` says how the campaign's saved cells stand to the documents' cut."""
    return (
        Difference(
            "prompt", "the question",
            f"{instruction_file}: the question stripped and given a '?' when it lacks one.",
            "AgentTemplate.prompt with question_mark true.",
            "faithful"),
        Difference(
            "prompt", "chat template",
            "verl/utils/dataset/rl_dataset.py __getitem__: apply_chat_template(add_generation_prompt=True) "
            "when the tokenizer has a chat template, else the instruction as it is; each response and "
            "observation is appended to the token sequence.",
            "agent_turn.continue_turn(chat=True): the instruction as the user's turn and the transcript as "
            "the assistant's, continued, when the backend has the chat capability (llama.cpp with a GGUF that "
            "carries a template; an OpenAI-compatible server on its chat endpoint); a plain prompt otherwise "
            "(the transformers backend has no chat capability), even where the tokenizer has a template.",
            "faithful",
            reason="Faithful on the backends the campaign runs (llama.cpp with Qwen2.5's template); the choice "
                   "follows the backend's capability, not the tokenizer's, elsewhere."),
        Difference(
            "documents", "the documents' layout",
            f"{_GEN} _passages2string (l. 460-469): 'Doc i(Title: <first line>) <rest>\\n' per hit, the first "
            "line of their corpus's contents being the title in double quotes (wiki-18: '\"' + title + "
            "'\"\\n' + text, Search-R1's README and example corpus), so 'Doc 1(Title: \"Evan Morris\") ...'; "
            f"execute_predictions (l. 391): '\\n\\n<{tag}>' + results.strip() + '</{tag}>\\n\\n'.",
            "templates/*.yaml document and results with strip_documents, via AgentTemplate.documents_block; "
            "title_quotes true in the template and SearchAgentConfig.title_quotes (default true) put the "
            "title in the same quotes. The campaign's saved cells ran without the quotes (pinned false, "
            "src/hopkit/campaign/saved_run_pins.yaml) and await a rerun.",
            "faithful"),
        Difference(
            "documents", f"the {obs_tokens}-token cut of the {tag} block",
            f"{_GEN} _process_next_obs (l. 77-91): the observation's tokens are cut to max_obs_length "
            f"({obs_tokens}, {settings_file}), keeping the first ones, so a long block loses its end and its "
            "closing tag.",
            f"templates/*.yaml max_documents_tokens {obs_tokens}: SearchAgent._search cuts the block to its "
            "first tokens of the model's tokenizer (cuts.head_tokens), so a long block loses its end and its "
            "closing tag; the retrieve step says documents_cut. The search agent's option documents_cut "
            "(default true, issue 71) turns the template's cut on; a template counts toward a run's id by its "
            f"name only, the option by its value. {saved_cells}",
            "faithful"),
        Difference(
            "documents", "the cuts' unit",
            "Token ids of the model's tokenizer (the chat template's markers count toward max_prompt_length); "
            "the token a cut splits is kept in part.",
            "cuts.py: the longest prefix (suffix) of the text whose llm.count_tokens is within the limit, by "
            "bisection over characters; the split token is dropped; the prompt's count leaves out the chat "
            "template's header and markers (agent_turn.prompt_size), which the authors' left-truncation "
            "would cut first and hopkit renders every turn.",
            "disclosed",
            reason="The LLM protocol counts tokens but does not cut them; on llama.cpp and transformers the "
                   "text cut differs by at most the one split token; an OpenAI-compatible server's "
                   "count_tokens is an estimate (a token per 6 letters), so there the cuts are too."),
        Difference(
            "retrieval", "the query",
            f"{_GEN} postprocess_predictions (l. 407-436): the first match of '<(search|answer)>(.*?)</\\1>', "
            "stripped, in the response cut at its first '</search>' (else '</answer>').",
            "actions.read_action: the tag opened last before the first closing tag; the template's other "
            "tags removed from the query.",
            "disclosed",
            reason="Only mixed or nested tags differ: '<search> a <search> b </search>' searches 'a <search> "
                   "b' there, 'b' here; '<search> q <answer> a' stopped at '</search>' searches 'q <answer> a' "
                   "there and answers 'a' here (the tag opened last); 'x </answer> <search> q </search>' "
                   "searches 'q' there (the search tag's cut comes first) and is no action here (stopped at "
                   "'</answer>'). Markup is kept out of the query (docs/methods/search-agent.md)."),
        Difference(
            "retrieval", "an empty query",
            "'<search></search>' is a search action with query '' sent to the retriever.",
            "read_action: no action; the invalid-action message follows.",
            "disclosed",
            reason="An empty search retrieves nothing to read (docs/methods/search-agent.md)."),
        Difference(
            "retrieval", "a very long query",
            "Sent as written.",
            "SearchAgentConfig.max_query_chars 1,000: longer queries are cut; the retrieve step says cut.",
            "disclosed",
            reason="A runaway generation inside the tag would otherwise become a retriever request of "
                   "hundreds of tokens."),
        Difference(
            "retrieval", "retriever",
            "A retrieval server (E5 over the 2018 Wikipedia dump) with retriever.topk 3.",
            "The run's retrieval pipeline (BM25 by default), k 3 from the template.",
            "disclosed",
            reason="hopkit compares methods over the same retriever; the number of documents is the "
                   "authors'."),
        Difference(
            "loop", "turns and the last turn",
            f"{_GEN} run_llm_loop (l. 220-319): max_turns ({turns}) generations with search, a question "
            "ending at an answer; then, for questions still active, one more generation with "
            "do_search=False; a response with neither action gets the invalid-action message.",
            "SearchAgent.generate with final_turn true and the template's invalid message.",
            "faithful"),
        Difference(
            "stops", "what ends a generation",
            f"No stop strings (verl rollout config): a response runs to max_response_length or EOS, then "
            f"{_GEN} _postprocess_responses (l. 54-75) cuts it at its first '</search>', else '</answer>'.",
            "SearchAgent._generate stops at either closing tag and writes the tag back (SearchAgent._kept) "
            "for a search or an answer; a generation read as no action keeps its text without the tag it "
            "stopped at (the authors keep the tag they cut at in every case).",
            "faithful",
            reason="The same cut for every action a model writes in the template's format; the stop at "
                   "'</answer>' comes before a later '</search>' here, where the authors' cut at '</search>' "
                   "takes precedence (the query row)."),
        Difference(
            "stops", "a tag still open when the model stopped",
            "The regex needs the closing tag: an open '<search> q' at EOS is an invalid action.",
            "read_action: a tag open at a stop other than the token budget counts as closed (backends cut "
            "the stop string off).",
            "disclosed",
            reason="hopkit's backends remove the stop string, so an open tag at the stop is taken for one "
                   "closed by it (docs/methods/search-agent.md)."),
        Difference(
            "limits", "tokens per generation",
            f"max_response_length {response_tokens} ({settings_file}).",
            f"max_tokens {response_tokens} in the template.",
            "faithful"),
        Difference(
            "limits", "the rolling prompt's length",
            f"{_GEN} _update_rolling_state (l. 93-118): the prompt, responses and observations are "
            f"left-truncated to max_prompt_length ({prompt_tokens}) before each generation.",
            f"templates/*.yaml max_prompt_tokens {prompt_tokens}: SearchAgent._rolling cuts the instruction "
            "and the turn to their last tokens before each generation (the instruction's start first); the "
            "reason step says prompt_cut. The context rule holds after the cut: a turn whose cut prompt and "
            "budget pass the model's context ends the loop (context_full) and the answer is forced.",
            "faithful"),
        Difference(
            "decoding", "greedy",
            "verl/trainer/ppo/ray_trainer.py validation meta_info do_sample False -> vllm_rollout.py "
            "temperature 0, top_p 1, top_k -1, n 1.",
            "continue_turn with temperature 0.0.",
            "faithful"),
        Difference(
            "answer", "reading the answer",
            answer_reading,
            "The first answer action ends the loop; agent_turn.agent_answer of its content: markup elements "
            "removed with their content ('<think>...', a special-token pair, an open tag with the rest), and "
            "'' for an answer with no letter or digit (a failed question, scored 0).",
            "disclosed",
            reason="The authors score the raw content; a small model writes tags inside its answer more "
                   "often, which hopkit reads past (docs/methods/search-agent.md: an answer that is only "
                   "markup)."),
        Difference(
            "answer", "no answer after the turns",
            "extract_solution still finds an answer: for Search-R1 the instruction's own '<answer> Beijing "
            "</answer>' (or ' and ' from an invalid-action message, which holds '<answer> and </answer>'), for "
            "AutoRefine ' and ' when an invalid-action message is in the responses, else None; the question "
            "scores 0 unless its answer is 'Beijing' or 'and'.",
            "SearchAgent._forced_answer: the opening answer tag is written and the model completes it "
            "(answer_tokens 32; force_answer false stores the question as failed).",
            "disclosed",
            reason="An option (on by default) recorded in the trace's read step and the summary's forced "
                   "(docs/methods/search-agent.md)."),
        Difference(
            "defaults", "top-k, turns, tokens",
            f"{settings_file}: retriever.topk 3, max_turns {turns}, max_response_length {response_tokens}.",
            f"The template's top_k 3, max_turns {turns}, max_tokens {response_tokens}.",
            "faithful"),
    )


SEARCH_R1 = FidelityTable(
    method="search-r1",
    reference=Reference(
        paper="Jin et al., Search-R1: Training LLMs to Reason and Leverage Search Engines with Reinforcement "
              "Learning, arXiv 2503.09516 (2025)",
        repository="PeterGriffinJin/Search-R1",
        commit=_SEARCH_R1,
        files=("scripts/data_process/qa_search_test_merge.py", _GEN, "search_r1/llm_agent/tensor_helper.py",
               "scripts/nq_hotpotqa/evaluate.sh", "verl/utils/dataset/rl_dataset.py",
               "verl/trainer/ppo/ray_trainer.py", "verl/workers/rollout/vllm_rollout/vllm_rollout.py",
               "verl/utils/reward_score/qa_em.py"),
        note="Line numbers are those of search_r1/llm_agent/generation.py at this commit; the settings are "
             "evaluate.sh's (validation only)."),
    rows=(
        Difference(
            "prompt", "instruction",
            "qa_search_test_merge.py make_prefix(template_type='base').",
            "templates/search-r1.yaml instruction: equal string (checked by running make_prefix).",
            "faithful"),
        *_verl_family("information", 500, 4096, 500, 4, "qa_search_test_merge.py", "evaluate.sh",
                      "verl/utils/reward_score/qa_em.py extract_solution: over the whole sequence (prompt "
                      "included, whose instruction holds two matches, ' and ' and ' Beijing '), None below two "
                      "matches (never, with this instruction), else the last '<answer>(.*?)</answer>', "
                      "stripped. The scored responses are cut to their first max_prompt_length (4,096) tokens "
                      "(_update_right_side), which 5 responses and 4 blocks at their limits (4,500 tokens) can "
                      "pass, leaving the model's answer out; AutoRefine's limits cannot reach its 6,656.",
                      saved_cells="The campaign's six saved Search-R1 cells (search-r1, search-r1-minilm) ran "
                                  "without the cut (22 of their 96 blocks pass 500 Qwen2.5 tokens, in 10 of 180 "
                                  "questions): they are pinned to documents_cut false "
                                  "(src/hopkit/campaign/saved_run_pins.yaml) and await a rerun."),
    ),
)

AUTOREFINE = FidelityTable(
    method="autorefine",
    reference=Reference(
        paper="Shi et al., Search and Refine During Think: Autonomous Retrieval-Augmented Reasoning of LLMs "
              "(AutoRefine), 2025",
        repository="syr-cn/AutoRefine",
        commit=_AUTOREFINE,
        files=("preprocess/data_process/utils.py", "preprocess/data_process/qa_search_test_merge.py", _GEN,
               "cmd/eval.sh", "verl/utils/reward_score/qa_em.py", "verl/trainer/ppo/ray_trainer.py"),
        note="generation.py differs from Search-R1's a14dc3a only in the documents' tag (<documents> for "
             "<information>), so its line numbers are the same."),
    rows=(
        Difference(
            "prompt", "instruction",
            "preprocess/data_process/utils.py make_prefix(template_type='autorefine').",
            "templates/autorefine.yaml instruction: equal string (checked by running make_prefix).",
            "faithful"),
        Difference(
            "prompt", "the <refine> step",
            "generation.py never writes or reads <refine>: the model writes it in its response; only the "
            "reward reads it (qa_em.py extract_refine, compute_reward's refine_score), not the answer.",
            "Nothing either: the model writes its <refine> notes as part of its turn.",
            "faithful"),
        *_verl_family("documents", 1024, 6656, 512, 3, "qa_search_test_merge.py", "cmd/eval.sh",
                      "verl/utils/reward_score/qa_em.py extract_solution(responses_str): over the responses "
                      "only, None without a match, else the last '<answer>(.*?)</answer>', stripped.",
                      saved_cells="The campaign's saved AutoRefine cells ran before the cut existed and are "
                                  "pinned to documents_cut false with the other search-agent cells "
                                  "(src/hopkit/campaign/saved_run_pins.yaml); none of their blocks reaches 1,024 "
                                  "Qwen2.5 tokens (the longest 960, docs/methods/search-agent.md), so their "
                                  "answers are those of the cut; they await a rerun for the title quotes (the "
                                  "documents' layout row)."),
    ),
)

R1_SEARCHER = FidelityTable(
    method="r1-searcher",
    reference=Reference(
        paper="Song et al., R1-Searcher: Incentivizing the Search Capability in LLMs via Reinforcement "
              "Learning, arXiv 2503.05592 (2025)",
        repository="RUCAIBox/R1-Searcher",
        commit=_R1_SEARCHER,
        files=("evaluation/eval_search_loacl.py", "evaluation/gen_search.sh", "train/wiki_corpus_load.py",
               "wiki_corpus_index_bulid/build_corpus_embedding.py"),
        note="Line numbers are those of evaluation/eval_search_loacl.py, run as gen_search.sh runs it "
             "(--temp 0.0 --prompt_type v0)."),
    rows=(
        Difference(
            "prompt", "instruction",
            "eval_search_loacl.py process_text: base_prompt_v0.format(question=...), a plain prompt (no chat "
            "template) ending 'Assistant: <think>'.",
            "templates/r1-searcher.yaml: equal string (checked), chat false, the question stripped "
            "(AgentTemplate.prompt; the authors format it raw).",
            "faithful"),
        Difference(
            "documents", "a document's layout",
            "l. 273-285: '(j)' + the corpus line with a leading number removed + '\\n'; 'None' when empty; "
            "after the generation stripped: '<|end_of_query|>\\n\\n<|begin_of_documents|>\\n' ... "
            "'<|end_of_documents|>\\n\\n'.",
            "templates/r1-searcher.yaml: '({number}){title}\\n{text}\\n', the same wrapper and 'None', "
            "strip_generation true.",
            "disclosed",
            reason="The authors' corpus lines are 'Title: T Text:  abstract' for HotpotQA "
                   "(wiki_corpus_index_bulid/samples/train_np_title_abs_sample_100.tsv) and 'title   paragraph' "
                   "for 2Wiki, MuSiQue and Bamboogle (KILT, split_kilt_to_100.py); hopkit's one layout puts the "
                   "title on its own line, matching neither exactly (docs/methods/search-agent.md)."),
        Difference(
            "retrieval", "the query",
            "l. 226-229: the text after the last '<|begin_of_query|>', with '\"', \"'\", '...' removed and "
            "tabs made spaces; searched when not empty.",
            "actions.read_action with the template's query_replace: the same cleaning, then stripped; the "
            "template's other tags removed, and the tag opened last read ('<|begin_of_query|> x <answer> y' "
            "stopped at '<|end_of_query|>' answers 'y', where the authors search 'x <answer> y').",
            "disclosed",
            reason="Markup is kept out of a query, as for the other templates (the Search-R1 table's query "
                   "row); a query written in the format is read the same."),
        Difference(
            "retrieval", "a query of spaces only",
            "Not stripped, so it is not empty and is searched.",
            "Stripped to empty: no action; the loop ends (invalid null) and the answer is forced "
            "(force_answer, the 'no answer' row).",
            "disclosed",
            reason="A blank search retrieves nothing to read; only whitespace-only queries differ."),
        Difference(
            "retrieval", "retriever and top-k",
            "train/wiki_corpus_load.py: BGE (FlagModel) over their Wikipedia corpus (its own default k 3); "
            "eval_search_loacl.py asks for topk 5 (l. 230, sent with the request, l. 268).",
            "The run's retrieval pipeline (BM25 by default), k 5 from the template.",
            "disclosed",
            reason="hopkit compares methods over the same retriever; the number of documents is the "
                   "authors'."),
        Difference(
            "loop", "rounds and their ends",
            "l. 179-260: up to 16 rounds, but the 10th round's generation is discarded ('many_retrieve'), so "
            "9 generations count; an answer or a query stopped by its tag continues or ends; anything else "
            "ends the question ('shot_down').",
            "SearchAgent.generate: max_turns 9, final_turn false, invalid null (the question ends).",
            "faithful"),
        Difference(
            "stops", "stop strings",
            "l. 172-173: stop at '<|im_end|>', '<|endoftext|>', '<|end_of_query|>', '</answer>'; an action "
            "needs stop_reason to be its tag (l. 215, 226).",
            "SearchAgent._generate stops at '<|end_of_query|>' and '</answer>', and where the backend ends a "
            "generation at the model's own end-of-generation tokens (llama.cpp: the GGUF's).",
            "faithful"),
        Difference(
            "stops", "a tag still open when the model stopped",
            "A stop other than the tag (EOS, '<|im_end|>') ends the question with 'I don't know.'.",
            "read_action: a tag open at a stop other than the token budget counts as closed.",
            "disclosed",
            reason="hopkit's backends remove the stop string and cannot always tell it from EOS "
                   "(docs/methods/search-agent.md)."),
        Difference(
            "limits", "tokens per generation and context",
            "SamplingParams max_tokens 512 (l. 173); no context handling.",
            "max_tokens 512 from the template; a turn that would not fit the context ends the loop "
            "(context_full) and the answer is forced.",
            "disclosed",
            reason="512 is the authors'; hopkit never sends a prompt that leaves no room for its generation."),
        Difference(
            "decoding", "greedy",
            "gen_search.sh --temp 0.0 (top_p 0.95 has no effect at temperature 0).",
            "continue_turn with temperature 0.0.",
            "faithful"),
        Difference(
            "answer", "reading the answer",
            "l. 215-219: when stopped at '</answer>', the text after the last '<answer>'.",
            "read_action: the tag opened last; agent_turn.agent_answer of its content, stripped.",
            "faithful"),
        Difference(
            "answer", "no answer",
            "pred_ans 'I don't know.' (many_retrieve, query_inst_error, shot_down).",
            "SearchAgent._forced_answer: the model completes an opening answer tag (force_answer false "
            "stores the question as failed).",
            "disclosed",
            reason="An option (on by default) recorded in the trace (docs/methods/search-agent.md)."),
        Difference(
            "defaults", "top-k, generations, tokens",
            "topk 5, 9 counted generations, max_tokens 512.",
            "templates/r1-searcher.yaml: top_k 5, max_turns 9, max_tokens 512.",
            "faithful"),
    ),
)

FIDELITY = (SEARCH_R1, R1_SEARCHER, AUTOREFINE)
