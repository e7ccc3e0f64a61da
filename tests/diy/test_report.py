"""The report: words in both languages, values escaped, both pools side by side, not-written stated."""
import pytest

from blockviz.diy import check
from blockviz.diy.compare import Mismatch
from blockviz.diy.describe import describe
from blockviz.engine.block_manager import BlockManager
from blockviz.i18n import t
from blockviz.markup import esc
from tests.diy.wrong import WRONG


class RaisesMarkup(BlockManager):
    def deallocate(self, seq):
        raise ValueError("<b>bold</b> & more")


def test_a_difference_draws_both_pools_at_its_step():
    report = check(WRONG["pops the free queue's tail"].cls, "allocate")
    html = report.html()
    assert html.count('data-view="pool"') == 2 and f'data-step="{report.step}"' in html
    assert 'data-passed="false"' in html and "free_block_ids" in html
    assert esc(t("diy.yours", "en", step=report.step)) in html and esc(t("diy.engines", "en", step=report.step)) in html


def test_the_pictures_are_timelines_that_know_what_each_step_scheduled():
    report = check(WRONG["forgets ref_count on a hit"].cls, "allocate")
    for side in (report.mine, report.engine):
        assert [f.step for f in side.frames] == list(range(report.step + 1))
        assert side.snapshot(report.step).is_prefill is not None and side.snapshot(report.step).scheduled
        assert side.snapshot(0).is_prefill is None  # before the first step
    assert set(report.mine.labels.values()) == set(report.engine.labels.values())


def test_the_first_differing_block_is_outlined_in_both_pools():
    report = check(WRONG["forgets ref_count on a hit"].cls, "allocate")
    assert report.fields[0] == "ref_count" and report.html().count('class="bv-sel"') == 2


def test_a_state_no_engine_reaches_is_still_reported():
    class TableOutOfRange(BlockManager):
        def allocate(self, seq, num_cached_blocks):
            seq.block_table.extend([len(self.blocks)] * seq.num_blocks)

    report = check(TableOutOfRange, "allocate")
    assert report.fault.kind == "engine_raised" and "IndexError" in report.fault.message
    assert 'data-passed="false"' in report.html()


def test_the_report_reads_in_chinese():
    report = check(WRONG["forgets ref_count on a hit"].cls, "allocate", lang="zh")
    text = "\n".join(report.lines())
    assert "第一处不同" in text and "引擎" in text and "ref_count" in text
    assert "你的实现" in report.html()


def test_the_learners_text_is_escaped():
    html = check(RaisesMarkup, "deallocate").html()
    assert "<b>bold</b>" not in html and "&lt;b&gt;bold&lt;/b&gt; &amp; more" in html


def test_a_pass_says_how_much_was_compared():
    report = check(BlockManager, "decode")
    assert "Nothing of this stage" in str(report) and not report.passed

    class Engine(BlockManager):
        can_append = BlockManager.can_append
        may_append = BlockManager.may_append

    report = check(Engine, "decode", workloads=3)
    assert report.passed and str(report).startswith("✓") and f"{report.steps} steps" in str(report)


def test_differences_in_words():
    assert describe(Mismatch("ref_count", 3, 1, 2), "en") == "Block #3: ref_count is 1 in yours, 2 in the engine's."
    call = ("can_allocate", "B", (), 1)
    assert describe(Mismatch("call", call, 1, 0), "en") == "can_allocate(B) returned 1 in yours, 0 in the engine's."
    assert describe(Mismatch("hash_to_block_id", 2**63, None, 4), "zh") == \
        "hash_to_block_id[800000] 在你的实现里是 不存在，引擎里是 #4。"


def test_the_report_names_the_method_at_fault_and_both_choices_in_words():
    """Each known wrong BlockManager changes one method: the report blames that one, in both languages."""
    from blockviz.diy.stages import METHODS
    for name, wrong in WRONG.items():
        changed = next(method for method in vars(wrong.cls) if method in METHODS)
        for lang, words in (("en", "The method at fault: "), ("zh", "出错的方法：")):
            report = check(wrong.cls, wrong.stage, lang=lang)
            assert report.divergence.culprit.method == changed, name
            line = report.lines()[1]
            assert line.startswith(words + changed), (name, line)
            assert f"<code>{changed}</code>" in report.html()


def test_a_wrong_pick_from_the_free_queue_says_which_block_each_side_took():
    report = check(WRONG["pops the free queue's tail"].cls, "allocate")
    culprit = report.divergence.culprit
    free = culprit.mine.before.free_block_ids
    assert culprit.mine.result == free[-1] and culprit.engine.result == free[0]  # what the engine took: the head
    assert (f"yours took block #{free[-1]}, the tail of the free queue; "
            f"the engine's took block #{free[0]}, the head of the free queue.") in report.lines()[1]
    zh = check(WRONG["pops the free queue's tail"].cls, "allocate", lang="zh").lines()[1]
    assert f"你的实现取了块 #{free[-1]}，即空闲队列的队尾；引擎取了块 #{free[0]}，即空闲队列的队首。" in zh


def test_a_caller_handing_out_other_blocks_is_to_blame():
    report = check(WRONG["deallocates in the wrong order"].cls, "deallocate")
    culprit = report.divergence.culprit
    assert culprit.method == "deallocate" and culprit.mine.method == "_deallocate_block"
    assert "yours called _deallocate_block(" in report.lines()[1]


@pytest.mark.parametrize("count", ["len(seq) // self.block_size + 1", "len(seq) // self.block_size"])
def test_a_caller_calling_its_helper_once_more_or_once_fewer_is_to_blame(count):
    """allocate taking a block too many (or too few): the sides' inner calls part ways, one side's
    _allocate_block against the other's allocate returning; allocate is blamed, with the table it left."""
    from blockviz.diy.mutants import mutant
    wrong = mutant("Count", "allocate", "range(num_cached_blocks, seq.num_blocks)", f"range(num_cached_blocks, {count})")
    for stage in ("allocate", "paging"):
        report = check(wrong, stage)
        culprit = report.divergence.culprit
        assert culprit is not None and culprit.method == "allocate" and culprit.mine.method == "allocate", str(report)
        assert culprit.effect.field == "block_table"
        assert len(culprit.mine.after.requests[""].block_table) != len(culprit.engine.after.requests[""].block_table)
        assert report.lines()[1].startswith("The method at fault: allocate, for request ")
        assert check(wrong, stage, lang="zh").lines()[1].startswith("出错的方法：allocate，请求 ")
