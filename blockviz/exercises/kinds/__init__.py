"""Every exercise kind, in lesson order."""
from blockviz.exercises.core import Kind
from blockviz.exercises.kinds.batch import DecodeMask, PrefillBatch
from blockviz.exercises.kinds.cache_size import CacheSize
from blockviz.exercises.kinds.decode import DecodeBlock
from blockviz.exercises.kinds.kvbytes import KVBytes
from blockviz.exercises.kinds.lifetime import Lifetime
from blockviz.exercises.kinds.pool import NextBlock, PoolStates
from blockviz.exercises.kinds.preempt import Preemption
from blockviz.exercises.kinds.prefix import AdmissionCost, BlockTable, CanAllocate, HitPattern
from blockviz.exercises.kinds.recompute import Recompute
from blockviz.exercises.kinds.refs import RefCounts
from blockviz.exercises.kinds.router_pick import RouterPick
from blockviz.exercises.kinds.slots import Slot, SlotMapping
from blockviz.exercises.kinds.steps import StepsTable
from blockviz.exercises.kinds.vllm_cached import VllmCached
from blockviz.exercises.kinds.waste import WastedSlots

KINDS: dict[str, Kind] = {kind.name: kind for kind in (
    Slot(), SlotMapping(), RefCounts(), PoolStates(), NextBlock(), HitPattern(), CanAllocate(), BlockTable(),
    AdmissionCost(), DecodeBlock(), WastedSlots(), Preemption(), KVBytes(), Lifetime(), PrefillBatch(), DecodeMask(),
    StepsTable(), VllmCached(), RouterPick(),
    CacheSize(), Recompute(),
)}
