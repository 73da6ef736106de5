import LocalCloud
import CVips
import CChafa
import CVipsShim

func _linkCheck() -> Int32 { cvips_init("x") + Int32(chafa_get_n_actual_threads()) + Int32(vips_version(0)) }
