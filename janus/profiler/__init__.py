"""The profiler: runs the first calls imperatively and records what it saw."""
from janus.profiler.profile import Profile, SiteProfile, describe_value
from janus.profiler.runtime import ProfileRuntime, profile_call

__all__ = ["Profile", "SiteProfile", "ProfileRuntime", "describe_value", "profile_call"]
