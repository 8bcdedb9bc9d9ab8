"""Test session setup: never touch the network, keep caches out of the user's home."""

from __future__ import annotations

import os
import tempfile

import pytest

# Set before huggingface_hub / datasets are imported: they read these at import time.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ.setdefault("HF_HOME", tempfile.mkdtemp(prefix="judgebench-hf-"))
os.environ.setdefault("JUDGEBENCH_CACHE_DIR", tempfile.mkdtemp(prefix="judgebench-cache-"))


# The fast selection (`python -m pytest -m "not slow"`, under a minute on 2 cores) leaves out these
# tests: end-to-end runs through subprocesses, signals, the browser and multi-second servers. CI runs
# everything. Kept here, in one list, so the test files need no edits; a test checks every name exists.
SLOW_TESTS = frozenset(
    {
        "test_api_matches_the_run_directory",
        "test_two_shards_merged_equal_one_run",
        "test_large_runs_keep_the_full_point_and_rescale_the_subsample",
        "test_small_chunks_give_the_same_run",
        "test_a_killed_run_keeps_its_finished_chunks_and_a_rerun_completes",
        "test_an_older_run_in_the_folder_is_replaced_not_appended_to",
        "test_rescoring_a_changed_verdict_keeps_the_texts",
        "test_merge_refuses_a_missing_a_repeated_or_a_foreign_shard",
        "test_baseline_rows_equal_builtin_runs_on_a_set_with_ties",
        "test_batch_line_error_is_failed_and_malformed_is_invalid",
        "test_batch_matches_normal_path_then_rerun_is_all_cached",
        "test_bootstrap_intervals_match_a_naive_bootstrap",
        "test_both_bad_exclude_drops_those_comparisons",
        "test_cache_key_separation",
        "test_cli_run_writes_no_secret_anywhere",
        "test_cli_run_writes_no_url_secret_anywhere",
        "test_clicking_a_header_sorts",
        "test_compare_refuses_different_tasks",
        "test_concurrency_limit_is_reached_and_never_exceeded",
        "test_concurrency_limit_is_respected",
        "test_csvs_carry_the_diagnostics_values",
        "test_ctrl_c_returns_partial_outcome_and_in_flight_calls_are_kept",
        "test_displayed_values_match_json",
        "test_export_then_load_from_disk_gives_the_same_rows",
        "test_full_disk_under_the_cache_stops_cleanly_and_keeps_paid_answers",
        "test_gate_fails_only_on_a_significant_drop_beyond_the_threshold",
        "test_hang_is_a_retryable_timeout",
        "test_hang_then_answer_on_retry",
        "test_hang_times_out_and_fails_after_retries_then_run_goes_on",
        "test_ideation_leaderboard_has_dimensions_mean_and_reported_rows",
        "test_joint_mode_keeps_valid_dimensions_of_a_partly_bad_answer",
        "test_kill_and_resume_never_repeats_a_completed_call",
        "test_length_curve_for_an_always_longer_judge",
        "test_longer_judge_soft_accuracy_matches_an_independent_count",
        "test_missing_model_names_leave_out_the_ratings_plot_with_a_reason",
        "test_multi_dimension_and_single_order_runs_are_accepted_as_labelled",
        "test_no_cache_and_refresh_cache",
        "test_openai_transport_does_not_import_litellm",
        "test_openai_transport_malformed_answer_is_retryable",
        "test_output_write_failure_keeps_the_judgments",
        "test_page_renders_in_chromium",
        "test_prompt_level_400_fails_the_call_not_the_run",
        "test_random_baseline_from_demo_label_shares",
        "test_replay_reproduces_the_recorded_runs",
        "test_report_files_from_samples_alone",
        "test_reported_rows_rank_only_against_the_protocol_column_and_never_beside_demo_runs",
        "test_rerun_waits_for_calls_another_process_is_making",
        "test_retry_after_is_honoured",
        "test_runner_end_to_end_with_faults",
        "test_sigterm_without_the_call_worker_drains_like_ctrl_c",
        "test_sigterm_writes_partial_results_and_counts_the_calls_sent",
        "test_style_control_recovers_planted_length_coefficient",
        "test_subset_and_smaller_runs_never_replace_an_entry",
        "test_two_concurrent_runs_on_one_cache_pay_once_per_prompt",
        "test_unrelated_change_passes_the_replay_gate",
        "test_user_task_run_scores_from_its_own_copy",
        "test_warm_up_is_not_charged_to_the_first_calls_timeouts",
    }
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: left out of the fast selection (-m 'not slow'); CI runs it")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if getattr(item, "originalname", item.name) in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)
