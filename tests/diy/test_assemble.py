"""assemble(): the learner's methods of the stage checked, the engine's for the rest; stubs are not written."""
from blockviz.diy.assemble import CallLog, assemble, is_stub, own
from blockviz.diy.stages import METHODS, STAGES, WHOLE, methods_checked
from blockviz.engine.block_manager import BlockManager


def stub(self, seq):
    raise NotImplementedError


def stub_with_message(self, seq):
    """Write it here."""
    raise NotImplementedError("write can_allocate")


def half_written(self, seq):
    n = seq.num_blocks
    raise NotImplementedError(n)


def test_a_stub_is_only_raise_not_implemented():
    assert is_stub(stub) and is_stub(stub_with_message)
    assert not is_stub(half_written) and not is_stub(BlockManager.can_allocate)


def test_own_finds_the_learners_methods_not_the_engines():
    class Learner(BlockManager):
        def deallocate(self, seq):
            pass

    assert own(Learner, "deallocate") is vars(Learner)["deallocate"]
    assert own(Learner, "allocate") is None and own(Learner, "__init__") is None


def test_methods_outside_the_stage_are_the_engines_and_stubs_are_missing():
    class Learner(BlockManager):
        can_allocate = stub

        def deallocate(self, seq):
            raise RuntimeError("not the stage checked: never runs")

    cls, missing = assemble(Learner, methods_checked("allocate"), CallLog())
    assert missing == ("can_allocate", "_allocate_block", "allocate")
    assert cls.deallocate.__wrapped__ is BlockManager.deallocate  # logged, but the engine's
    assert issubclass(cls, Learner) and cls.__name__ == "Learner"


def test_a_class_with_the_same_interface_gets_the_engine_as_its_base():
    class Mine:
        def can_append(self, seq):
            return True

    cls, missing = assemble(Mine, methods_checked("decode"), CallLog())
    assert cls.__mro__[1:3] == (Mine, BlockManager) and missing == ("may_append",)


def test_the_stages_cover_every_method_once():
    assert sorted(METHODS) == sorted({m for s in STAGES for m in s.methods})
    assert len(METHODS) == len(set(METHODS))  # the whole engine's stages each write their own
    assert [s.name for s in STAGES if s not in WHOLE] == ["paging"]  # b0 writes b1's and b2's without the cache


def test_outside_the_paging_stage_the_methods_are_the_cacheless_engines():
    from blockviz.diy.cacheless import CachelessBlockManager
    cls, _ = assemble(BlockManager, methods_checked("paging"), CallLog(), reference=CachelessBlockManager)
    assert cls.hash_blocks.__wrapped__ is CachelessBlockManager.hash_blocks
    assert cls.may_append.__wrapped__ is BlockManager.may_append
